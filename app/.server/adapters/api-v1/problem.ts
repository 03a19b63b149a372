/** An answer other than success, thrown by an endpoint's run(): the router sends it as `{ code, message }`. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiProblem";
  }
}
