/**
 * The one sentence a user sees when something broke on our side. Once a call of the run was
 * requested it may have taken effect, so the sentence never claims that nothing was done.
 */
export function failureSentence(
  runId: string,
  err: unknown,
  options: { mayHaveActed?: boolean } = {},
): string {
  const storage = errorCode(err) === "storage_unavailable";
  const why = options.mayHaveActed
    ? `${storage ? "my storage became unavailable" : "something went wrong on my side"} before I could finish this request. What I had already started may or may not have taken effect: check before trying again`
    : storage
      ? "my storage is unavailable right now, so nothing was done"
      : "something went wrong on my side and I could not finish this request";
  return `:warning: Sorry, ${why}. Reference: run \`${runId}\`.`;
}

function errorCode(err: unknown): unknown {
  return typeof err === "object" && err !== null && "code" in err ? err.code : undefined;
}
