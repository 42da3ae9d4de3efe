import { runService } from "@newsroom/shared/service";
import { createWebhooksService } from "./app.ts";
import { WebhooksConfig } from "./config.ts";

await runService(WebhooksConfig, createWebhooksService);
