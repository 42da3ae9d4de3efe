import { type IconSpec, initialOf } from "@newsroom/shared/icon";
import type { Brand } from "./brand.ts";
import { themeOf } from "./theme.ts";

/** A newsroom's icon: its readable accent and the initial of its name. */
export function brandIcon(brand: Pick<Brand, "accent" | "name">): IconSpec {
  const theme = themeOf(brand.accent);
  return { colour: theme.accent, initial: initialOf(brand.name), ink: theme.onAccent };
}
