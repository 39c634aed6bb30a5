// An OpenAI-style error: the HTTP status and the body {"error":{"message","type","param","code"}} the
// simulator answers with. Runs in Node, pure.

/** An error answered as {"error":{"message","type","param","code"}} with this HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly type = errorType(status),
  ) {
    super(message);
  }

  body(): string {
    return JSON.stringify({ error: { message: this.message, type: this.type, param: this.param, code: this.status } });
  }
}

function errorType(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequestError';
    case 401:
      return 'AuthenticationError';
    case 404:
      return 'NotFoundError';
    case 413:
      return 'RequestEntityTooLarge';
    case 429:
      return 'RateLimitError';
    case 503:
      return 'ServiceUnavailableError';
    default:
      return status >= 500 ? 'InternalServerError' : 'BadRequestError';
  }
}
