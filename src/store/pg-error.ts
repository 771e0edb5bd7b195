/** The SQLSTATE of a Postgres (or PGlite) error, wherever a driver or drizzle wrapped it (`cause` chain). */
export function pgCode(err: unknown): string | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}
