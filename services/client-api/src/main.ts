import { runService } from "@newsroom/shared/service";
import { createClientApiService } from "./app.ts";

// A process of its own never shares the workspace's in-process bus: nothing is cached.
await runService((runtime) => createClientApiService(runtime, { cache: false }));
