// The test runner has no browser build (vitest.config.ts): no chunk uses a word.
export default null;
