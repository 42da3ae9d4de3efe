import { runService } from "@newsroom/shared/service";
import { createClientApiService } from "./app.ts";
import { ClientApiConfig } from "./config.ts";

await runService(ClientApiConfig, (runtime) => createClientApiService(runtime));
