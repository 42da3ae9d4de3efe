import type { MemberRole } from "@newsroom/shared/db/schema";

/**
 * Who may do what in an organization: the one table of the workspace (its copy for readers is
 * docs/permissions.md, and a test keeps the two equal). Staff (owners
 * and admins of HOUSE_ORG) act in every organization with their house role.
 */
export const PERMISSION_ACTIONS = [
  "view",
  "story.edit",
  "story.decide",
  "story.publish",
  "asset.clear",
  "key.create",
  "key.revoke",
  "endpoint.create",
  "endpoint.test",
  "endpoint.disable",
  "endpoint.enable",
  "endpoint.delete",
  "newsletter.manage",
  "sites.manage",
  "cms.manage",
  "members.manage",
  "members.manage_owners",
  "audit.view",
  "oauth_client.manage",
  "api_approvals.switch",
] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

const EVERYTHING: readonly PermissionAction[] = PERMISSION_ACTIONS;

export const PERMISSIONS: Record<MemberRole, readonly PermissionAction[]> = {
  viewer: ["view"],
  editor: ["view", "story.edit"],
  // Publishing an approved version is a release decision: the approver's, never the editor's.
  approver: ["view", "story.decide", "story.publish", "asset.clear"],
  // Letting applications decide stories for the organization is the owners' choice.
  admin: EVERYTHING.filter(
    (action) => action !== "members.manage_owners" && action !== "api_approvals.switch",
  ),
  owner: EVERYTHING,
};

export function can(role: MemberRole, action: PermissionAction): boolean {
  return PERMISSIONS[role].includes(action);
}
