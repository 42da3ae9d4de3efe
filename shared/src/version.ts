/** The version every response names in `X-Service-Version`. */
export const SERVICE_VERSION = "1.3.0";

/** The version of the OpenAPI document. */
export const API_DOCUMENT_VERSION = "1.3.0";
