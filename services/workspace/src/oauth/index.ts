/**
 * The workspace's OAuth 2.0 authorization server for approvals through the API: what the web
 * app's pages and the routes use.
 *
 * Applications (an organization's owners or admins register them; the caller checks the role):
 * - `registerOAuthClient(db, org, { name, redirect_uris, grant_types }, createdBy)`
 * - `listOAuthClients(db, organizationId)`, `findOAuthClient(db, clientId)`,
 *   `findOrganizationOAuthClient(db, organizationId, id)`, `oauthClientOut(row)`
 * Who may allow: `approverRole(db, organizationId, personId)`, `approverOrganizations(db, personId)`
 * Consent: `issueAuthorizationCode(db, { client, organizationId, personId, redirectUri,
 *   codeChallenge }, now)` answers the code to put on the redirect.
 * Device page: `findPendingDevice(db, userCode, now)`, `decideDevice(db, { userCode, personId,
 *   organizationId, decision }, now)`, `displayUserCode(code)`.
 * Applications a person allowed: `grantsOfPerson(db, personId)` (client, organization, when,
 *   last used), `personGrantOut(grant)`, `revokeGrant(db, personId, grantId, now)` (ends the
 *   token family).
 * The owner switch is the organization's `apiApprovalsEnabled` (PATCH `api_approvals_enabled`).
 * Pages: `APPLICATIONS_PAGE_PATH` (`/app/applications`, where the consent and device pages link
 *   for "Applications you allowed"), `AUTHORIZE_PATH`, `DEVICE_PATH`, `SCOPE_WORDS` (the scope
 *   in plain words).
 */
export { approverOrganizations, approverRole } from "./access.ts";
export {
  findOAuthClient,
  findOrganizationOAuthClient,
  listOAuthClients,
  type OAuthClientInput,
  type OAuthClientRow,
  oauthClientOut,
  redirectUriProblem,
  registerOAuthClient,
} from "./clients.ts";
export { exchangeAuthorizationCode, issueAuthorizationCode } from "./codes.ts";
export { decideDevice, findPendingDevice, pollDevice, startDeviceAuthorization } from "./device.ts";
export { OAuthError } from "./errors.ts";
export { APPLICATIONS_PAGE_PATH, SCOPE_WORDS } from "./pages.ts";
export {
  ACCESS_TOKEN_PREFIX,
  APPROVE_SCOPE,
  displayUserCode,
  normalizeUserCode,
  OAUTH_SCOPES,
  REFRESH_TOKEN_PREFIX,
  s256Challenge,
} from "./secrets.ts";
export { sweepOAuth } from "./sweep.ts";
export {
  checkAccessToken,
  grantsOfPerson,
  type PersonGrant,
  personGrantOut,
  refreshTokens,
  revokeGrant,
  revokeToken,
  type TokenAnswer,
} from "./tokens.ts";
export { AUTHORIZE_PATH, DEVICE_PATH } from "./web-routes.ts";
