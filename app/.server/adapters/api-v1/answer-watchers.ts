/**
 * Who sees every answer /api/v1 gives, with its request: the integration tests hold each error to
 * the catalogue and to its endpoint's documented codes (tests/support/api-answer-check.ts). Empty in
 * production. A module of its own, importing nothing, so every test file can register cheaply.
 */
export const answerWatchers = new Set<(request: Request, response: Response) => void>();
