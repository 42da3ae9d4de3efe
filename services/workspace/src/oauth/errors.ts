/**
 * The token and device endpoints answer errors as RFC 6749 §5.2 says (`{ error,
 * error_description }`), not as the Error record of the rest of the API.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "invalid_scope"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_token_type"
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  | "access_denied";

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = code === "invalid_client" ? 401 : 400,
  ) {
    super(description);
    this.name = "OAuthError";
  }

  toBody() {
    return { error: this.code, error_description: this.description };
  }
}
