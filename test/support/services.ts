/** Each service's name (as in its `@newsroom/<name>` package) and folder, from the repository's root. */
export const SERVICE_FOLDERS: readonly { name: string; folder: string }[] = [
  { name: "gateway", folder: "gateway" },
  { name: "client-api", folder: "services/client-api" },
  { name: "forms", folder: "services/forms" },
  { name: "public-read", folder: "services/public-read" },
  { name: "webhooks", folder: "services/webhooks" },
  { name: "workspace", folder: "services/workspace" },
];
