import { readFileSync } from "node:fs";
import type { MemberRole } from "@newsroom/shared/db/schema";
import type { PermissionAction } from "../../src/identity/members/permissions.ts";

/**
 * docs/permissions.md's "Workspace permissions" table, action by action: the permission tests are generated
 * from it (the code's table must say the same, and every role tries every action the web app
 * offers, allowed or 403).
 */
export function readmeTable(): Map<PermissionAction, Record<MemberRole, boolean>> {
  const readme = readFileSync(`${import.meta.dir}/../../../../docs/permissions.md`, "utf8");
  const section = readme
    .split(/^#{1,2} /m)
    .find((part) => part.startsWith("Workspace permissions"));
  if (!section) throw new Error("docs/permissions.md has no 'Workspace permissions' section");
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  const roles = header!.slice(1) as MemberRole[];
  const table = new Map<PermissionAction, Record<MemberRole, boolean>>();
  for (const [action, ...cells] of body) {
    const allowed = {} as Record<MemberRole, boolean>;
    roles.forEach((role, i) => {
      allowed[role] = cells[i] === "yes";
    });
    table.set(action as PermissionAction, allowed);
  }
  return table;
}
