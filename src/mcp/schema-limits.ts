/**
 * Bounds on an MCP server's input schema, checked before it is converted: the server is not on our
 * side, and the conversion (zod's, recursive) and the spec the registry sends the model every turn
 * (refs inlined) grow with what it sends. Every check here is iterative or bounded by the others.
 */

export const SCHEMA_LIMITS = {
  /** The schema as the server sent it, serialized. */
  maxChars: 64 * 1024,
  /** Nesting of objects and arrays. */
  maxDepth: 32,
  /** `$ref`s anywhere in it. */
  maxRefs: 64,
  /** The schema with every `$ref` replaced by its target, serialized (estimated without building it). */
  maxInlinedChars: 64 * 1024,
  /** The spec the registry makes from the converted schema, serialized. */
  maxSpecChars: 32 * 1024,
} as const;

type Json = Record<string, unknown>;

/** Why the schema is over a limit, or undefined when it is within all of them. */
export function schemaOverLimit(schema: unknown): string | undefined {
  const shape = measureShape(schema);
  if (shape.depth > SCHEMA_LIMITS.maxDepth) {
    return `its input schema nests deeper than ${SCHEMA_LIMITS.maxDepth} levels`;
  }
  if (shape.refs > SCHEMA_LIMITS.maxRefs) {
    return `its input schema has more than ${SCHEMA_LIMITS.maxRefs} $refs`;
  }
  const chars = JSON.stringify(schema)?.length ?? 0;
  if (chars > SCHEMA_LIMITS.maxChars) {
    return `its input schema is ${chars} characters (at most ${SCHEMA_LIMITS.maxChars})`;
  }
  if (inlinedChars(schema, SCHEMA_LIMITS.maxInlinedChars) > SCHEMA_LIMITS.maxInlinedChars) {
    return `its input schema's $refs expand to more than ${SCHEMA_LIMITS.maxInlinedChars} characters`;
  }
  return undefined;
}

/** Depth and `$ref` count, with an explicit stack (a 20,000-deep schema must not overflow ours). */
function measureShape(schema: unknown): { depth: number; refs: number } {
  let depth = 0;
  let refs = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: schema, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth: at } = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    depth = Math.max(depth, at + 1);
    // Past the limit the answer is known: stop before walking the rest of a hostile schema.
    if (depth > SCHEMA_LIMITS.maxDepth) return { depth, refs };
    if (!Array.isArray(value) && typeof (value as Json).$ref === "string") refs++;
    for (const child of Object.values(value)) stack.push({ value: child, depth: at + 1 });
  }
  return { depth, refs };
}

/**
 * The serialized length of `schema` with every local `$ref` replaced by its target, computed once per
 * target (so a chain of defs that each refer to the next twice costs linear time, not 2^n), stopping
 * once past `cap`. A ref that cannot be resolved counts as itself (zod rejects it later); a cycle
 * counts as a ref (it stays one in the spec). Recursion is bounded by depth × refs, both capped.
 */
function inlinedChars(root: unknown, cap: number): number {
  const memo = new Map<string, number>();
  const inProgress = new Set<string>();
  const size = (value: unknown): number => {
    if (typeof value !== "object" || value === null) return JSON.stringify(value)?.length ?? 4;
    if (Array.isArray(value))
      return value.reduce<number>((sum, item) => Math.min(cap + 1, sum + size(item) + 1), 2);
    const ref = (value as Json).$ref;
    if (typeof ref === "string") {
      const known = memo.get(ref);
      if (known !== undefined) return known;
      const target = resolvePointer(root, ref);
      if (target === undefined || inProgress.has(ref)) return JSON.stringify(value).length;
      inProgress.add(ref);
      const total = size(target);
      inProgress.delete(ref);
      memo.set(ref, total);
      return total;
    }
    let total = 2;
    for (const [key, child] of Object.entries(value)) {
      // `$defs` stay behind: only what refers to them is inlined.
      if (value === root && (key === "$defs" || key === "definitions")) continue;
      total += JSON.stringify(key).length + 2 + size(child);
      if (total > cap) return cap + 1;
    }
    return total;
  };
  return size(root);
}

/** A local JSON pointer (`#`, `#/$defs/a`) into `root`; undefined when it leads nowhere. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Json)[segment];
  }
  return at;
}
