import { runService } from "@newsroom/shared/service";
import { createFormsService } from "./app.ts";
import { FormsConfig } from "./config.ts";

await runService(FormsConfig, createFormsService);
