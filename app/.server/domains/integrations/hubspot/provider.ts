import { HUBSPOT_SCOPES, HubspotError, hubspotAuthorizeUrl, hubspotClient } from "../../../infrastructure/clients/hubspot";
import { ProviderError, type IntegrationProvider, type ProviderTokens } from "../providers";

/** HubSpot's refusal in words for the card and the log; a spent or revoked grant says only connecting again helps. */
export function providerErrorOf(error: unknown): unknown {
  if (!(error instanceof HubspotError)) return error;
  return new ProviderError(error.message, { grantGone: error.kind === "revoked" });
}

async function asProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw providerErrorOf(error);
  }
}

const scopesOf = () => [...HUBSPOT_SCOPES];

/**
 * HubSpot's app install as the generic OAuth flow needs it (decision 083): the install page with
 * the contacts and lists scopes, the form-encoded code exchange and refresh (30-minute access
 * tokens, a refresh token), the portal (Hub ID and domain) from the token's metadata, and the
 * refresh token revoked on disconnect.
 */
export const hubspotProvider: IntegrationProvider = {
  id: "hubspot",
  authorizeUrl: ({ state, redirectUri, sandboxUser }) => hubspotAuthorizeUrl({ state, redirectUri, sandboxUser }),
  exchangeCode: ({ code, redirectUri }) =>
    asProvider(async (): Promise<ProviderTokens> => {
      const tokens = await hubspotClient().exchangeCode(code, redirectUri);
      return { ...tokens, scopes: scopesOf() };
    }),
  refresh: (refreshToken) =>
    asProvider(async (): Promise<ProviderTokens> => {
      const tokens = await hubspotClient().refresh(refreshToken);
      return { ...tokens, scopes: scopesOf() };
    }),
  revoke: ({ refreshToken }) =>
    asProvider(async () => {
      if (!refreshToken) throw new ProviderError("No refresh token to revoke.");
      await hubspotClient().revokeRefreshToken(refreshToken);
    }),
  account: ({ accessToken }) =>
    asProvider(async () => {
      const info = await hubspotClient().tokenInfo(accessToken);
      const domain = info.hubDomain ?? `portal ${info.hubId}`;
      return { label: `${domain} (Hub ID ${info.hubId})`, externalId: String(info.hubId) };
    }),
};
