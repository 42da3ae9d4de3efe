import { type Config, secretsKey } from "@newsroom/shared/config";
import {
  unsubscribeHeaders,
  unsubscribeLink,
  unsubscribeToken,
} from "@newsroom/shared/digest-unsubscribe";

/** A digest subscription's unsubscribe link and its List-Unsubscribe headers. */
export function digestUnsubscribe(
  config: Pick<Config, "PUBLIC_BASE_URL" | "SECRETS_KEY">,
  subscriptionId: string,
) {
  const link = unsubscribeLink(
    config.PUBLIC_BASE_URL,
    unsubscribeToken(secretsKey(config), subscriptionId),
  );
  return { link, headers: unsubscribeHeaders(link) };
}
