import { runService } from "@newsroom/shared/service";
import { createClientApiService } from "./app.ts";

await runService((runtime) => createClientApiService(runtime));
