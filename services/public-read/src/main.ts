import { runService } from "@newsroom/shared/service";
import { createPublicReadService } from "./app.ts";

await runService(createPublicReadService);
