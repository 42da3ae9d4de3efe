export { signingSecrets } from "@newsroom/shared/webhook-secrets";
