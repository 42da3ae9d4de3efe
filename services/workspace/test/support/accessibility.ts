/** axe-core on a page: one helper for every service's browser tests. */
export { expectAccessible } from "@newsroom/shared/testing/accessibility";
