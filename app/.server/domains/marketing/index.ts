/**
 * The marketing domain's public entry: no other domain uses it (its routes, adapters and the
 * composition root reach its modules). A domain imports another only through its index.ts
 * (tests/architecture/layers.test.ts).
 */
export {};
