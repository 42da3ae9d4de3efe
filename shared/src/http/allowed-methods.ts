/** An app as far as its routes go: what the router matches, and each route's documentation. */
export type RoutedApp = {
  routes: { method: string; path: string; hooks?: { detail?: unknown } }[];
};

/** The methods this app answers on a path, for 405 with `Allow`. */
export function allowedMethods(app: RoutedApp, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    const pattern = route.path
      .split("/")
      .map((part) =>
        part.startsWith(":")
          ? "[^/]+"
          : part === "*"
            ? ".*"
            : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    if (new RegExp(`^${pattern}$`).test(path)) methods.add(route.method.toUpperCase());
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].filter((m) => m !== "ALL").sort();
}
