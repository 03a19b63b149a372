/**
 * The demo Meta app the sandbox plays: Jumbe's configuration falls back to it when no real app is
 * configured, and the standalone sandbox signs with it by default.
 */
export const DEMO_META_APP_ID = "100000000000001";
export const DEMO_META_APP_SECRET = "jumbe-sandbox-meta-app-secret";
