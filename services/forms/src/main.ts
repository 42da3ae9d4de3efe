import { runService } from "@newsroom/shared/service";
import { createFormsService } from "./app.ts";

await runService(createFormsService);
