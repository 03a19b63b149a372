import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import i18next from "eslint-plugin-i18next";

// Issue 43: words a person reads come from the catalogue (app/messages, `m.*`), never written in place.
// Brand and product names, codes and symbols may stand alone (docs/glossary.md, "Never translated").
const NEVER_TRANSLATED = [
  // HTML's and ARIA's own tokens: an input's type, autocomplete, inputmode, a live region's politeness.
  "(text|email|password|tel|number|search|url|date|time|datetime-local|month|file|hidden|checkbox|radio|submit|button|reset|on|off|none|numeric|decimal|one-time-code|username|current-password|new-password|given-name|family-name|organization|polite|assertive|true|false|post|get|multipart/form-data|_blank|noopener noreferrer|noreferrer|lazy|eager|async|auto)",
  "[0-9!-/:-@[-`{-~\\s·•–—…→←↑↓✓✗×€£$%]+",
  "[A-Z0-9_-]+",
  "(Jumbe|WhatsApp( Business)?( API)?|Meta|M-Pesa|Paybill|Paystack|KRA|KES|Ksh|API|OpenAPI|JSON|CSV|PDF|OTP|VAT|eTIMS|SMS|URL|HTTP|HTTPS|ID|UTC|E\\.164|cURL|Node\\.js|Python|PHP|Safaricom|Daraja|Google|HubSpot|Shopify|Zapier|Facebook|Visa|Mastercard|English|Kiswahili|Français)([\\s,./:·-]+(Jumbe|WhatsApp|Meta|M-Pesa|API|KES|Ksh|VAT|PDF|CSV))*",
];
// Props of the kit's components and HTML attributes that carry words.
const WORDY_ATTRIBUTES = [
  "placeholder",
  "title",
  "alt",
  "aria-label",
  "aria-description",
  "aria-roledescription",
  "aria-valuetext",
  "label",
  "hint",
  "description",
  "heading",
  "subtitle",
  "caption",
  "emptyText",
  "empty",
  "confirmLabel",
  "cancelLabel",
  "submitLabel",
  "pendingText",
  "busyText",
  "data-pending-text",
];
// A sentence (a space between words) handed to a refusal, a toast or a JSON error: what a person is told.
const SAID_TO_PEOPLE = "/^(refuse[A-Za-z]*|refused[A-Za-z]*|[a-zA-Z]*Refusal|jsonError|setToast|toast|withToast|redirectWithToast)$/";
const sentence = (where) => [
  {
    selector: `CallExpression[callee.name=${SAID_TO_PEOPLE}] > Literal[value=/[A-Za-z]+ [A-Za-z]+/]`,
    message: `A sentence for people ${where} comes from the catalogue (m.*, app/messages), not written in place (issue 43).`,
  },
  {
    selector: `CallExpression[callee.name=${SAID_TO_PEOPLE}] > TemplateLiteral > TemplateElement[value.raw=/[A-Za-z]+ [A-Za-z]+/]`,
    message: `A sentence for people ${where} comes from the catalogue (m.*, app/messages), not written in place (issue 43).`,
  },
  {
    selector: `NewExpression[callee.name=/Refusal$/] > Literal[value=/[A-Za-z]+ [A-Za-z]+/]`,
    message: `A sentence for people ${where} comes from the catalogue (m.*, app/messages), not written in place (issue 43).`,
  },
];

export default tseslint.config(
  {
    ignores: [
      "build/",
      "node_modules/",
      ".react-router/",
      "data/",
      "test-results/",
      "playwright-report/",
      "bench/results/",
      "app/paraglide/",
      "project.inlang/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "react-hooks/set-state-in-effect": "off",
    },
  },
  {
    // Issue 43: no bare words in what the app draws.
    files: ["app/**/*.tsx"],
    ignores: ["app/**/*.test.tsx", "app/routes/dev/**"],
    plugins: { i18next },
    rules: {
      "i18next/no-literal-string": [
        "error",
        {
          mode: "jsx-only",
          "jsx-attributes": { include: WORDY_ATTRIBUTES },
          words: { exclude: NEVER_TRANSLATED },
          message: "Words a person reads come from the catalogue (m.*, app/messages), not written in place (issue 43).",
        },
      ],
    },
  },
  {
    // …nor in what the server tells people (the public API's own adapters answer in English, docs/api.md).
    files: ["app/**/*.{ts,tsx}"],
    ignores: [
      "app/**/*.test.{ts,tsx}",
      "app/routes/dev/**",
      "app/routes/api/**",
      "app/.server/adapters/api-v1/**",
      "app/.server/infrastructure/http/json.ts",
      "app/.server/demo/**",
    ],
    rules: { "no-restricted-syntax": ["error", ...sentence("on a page")] },
  },
  {
    // The browser build keeps only the messages its code names (decision 072): `m[id]` would keep all of them.
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/.server/**", "app/**/*.test.{ts,tsx}", "app/routes/dev/**", "app/routes/api/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...sentence("on a page"),
        {
          selector: "MemberExpression[object.name='m'][computed=true]",
          message: "Name the message (m.key()): a computed m[id] puts the whole catalogue in the browser's code (decision 072).",
        },
      ],
    },
  },
  {
    // Links go through the kit's Link: a plain anchor on a page without React (components/ui/link.tsx).
    files: ["app/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "react-router",
              importNames: ["Link", "NavLink"],
              message: "Import Link from ~/components/ui/link: on a document page it is a plain anchor.",
            },
          ],
        },
      ],
    },
  },
  {
    // Playwright fixtures use `use`, which is not React's hook.
    files: ["tests/e2e/**/*.ts", "playwright.config.ts"],
    rules: { "react-hooks/rules-of-hooks": "off", "no-empty-pattern": "off" },
  },
  {
    files: ["**/*.{js,mjs}"],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Small page scripts that run in the browser without React (docs/decisions/007).
    files: ["app/assets/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
