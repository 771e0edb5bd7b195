import { canonicalJson, sha256Hex } from "../store/canonical-json.ts";

/**
 * The hash an approval is bound to: tool name + canonical arguments. The runtime records it with each
 * call, the approval stores it, and an approved call runs only if its arguments still hash to it.
 */
export const argsSha256 = (tool: string, args: unknown) => sha256Hex(`${tool}\n${canonicalJson(args)}`);
