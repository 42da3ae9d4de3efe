import { runService } from "@newsroom/shared/service";
import { createWebhooksService } from "./app.ts";

await runService(createWebhooksService);
