import { GoogleError, googleConsentUrl, type GoogleTokens } from "../../../infrastructure/clients/google-sheets";
import { ProviderError, type IntegrationProvider, type ProviderTokens } from "../providers";
import { GOOGLE_SHEETS_ID, sheetsClient } from "./google-call";

const asProviderTokens = (tokens: GoogleTokens): ProviderTokens => ({
  accessToken: tokens.accessToken,
  refreshToken: tokens.refreshToken ?? null,
  expiresAt: tokens.expiresAt,
  scopes: tokens.scopes,
});

/** Google's failure as the framework's: `invalid_grant` (revoked, expired) means connecting again. */
async function asProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GoogleError) throw new ProviderError(error.message, { grantGone: error.kind === "revoked" });
    throw error;
  }
}

/**
 * Google Sheets as an IntegrationProvider (issue 45, decision 085): OAuth 2 for a web server app with
 * PKCE, the per-file `drive.file` scope (and `openid email` to name the account), offline access with
 * a fresh consent so a refresh token comes back; the account is the Google account's e-mail.
 */
export const googleSheetsProvider: IntegrationProvider = {
  id: GOOGLE_SHEETS_ID,
  pkce: true,
  authorizeUrl: (request) =>
    googleConsentUrl({
      state: request.state,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      sandboxUser: request.sandboxUser,
    }),
  exchangeCode: (exchange) =>
    asProvider(async () => {
      const tokens = await sheetsClient().exchangeCode(exchange.code, exchange.redirectUri, exchange.codeVerifier);
      if (!tokens.refreshToken) throw new ProviderError("Google gave no refresh token: connect again and allow offline access.");
      return asProviderTokens(tokens);
    }),
  refresh: (refreshToken) => asProvider(async () => asProviderTokens(await sheetsClient().refresh(refreshToken))),
  revoke: (tokens) =>
    asProvider(async () => {
      // Revoking the refresh token revokes the whole grant (its access tokens with it).
      const token = tokens.refreshToken ?? tokens.accessToken;
      if (token) await sheetsClient().revoke(token);
    }),
  account: (tokens) =>
    asProvider(async () => {
      const info = await sheetsClient().tokenInfo(tokens.accessToken);
      return { label: info.email ?? info.sub, externalId: info.sub };
    }),
};
