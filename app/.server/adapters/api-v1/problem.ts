import { isRefusal, type RefusalDomain } from "../../infrastructure/refusal";

/**
 * An answer other than success, thrown by an endpoint's run(): the router sends it as `{ code, message }`,
 * with `field` when the problem is one field of the body (a path: `keywords[1]`, `hours.monday[0].from`).
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "ApiProblem";
  }
}

/**
 * A refusal by one of `domains` as the API's problem, with its status, code and sentence (the
 * catalogue holds them, decision 052); anything else is left as it was. Only the domains an endpoint
 * names: another's refusal carries codes the catalogue does not list.
 */
export function refusalProblem(error: unknown, ...domains: [RefusalDomain, ...RefusalDomain[]]) {
  return isRefusal(error, ...domains) ? new ApiProblem(error.status, error.code, error.message) : error;
}
