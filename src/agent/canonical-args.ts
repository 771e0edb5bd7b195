import { canonicalJson, sha256Hex } from "../store/canonical-json.ts";

export { canonicalJson, sha256Hex };

/** The hash an approval is bound to: tool name + canonical arguments. */
export const argsSha256 = (tool: string, args: unknown) => sha256Hex(`${tool}\n${canonicalJson(args)}`);
