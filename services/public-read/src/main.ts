import { runService } from "@newsroom/shared/service";
import { createPublicReadService } from "./app.ts";
import { PublicReadConfig } from "./config.ts";

await runService(PublicReadConfig, createPublicReadService);
