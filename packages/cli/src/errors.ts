/** Exit codes: 0 success, 1 API or network error, 2 usage error. */
export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;

/** A mistake in how canopy was called (bad flag value, missing file): exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
