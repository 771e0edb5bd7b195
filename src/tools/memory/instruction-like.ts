/**
 * Facts that read like orders to the agent are refused before they are stored: a memory is recalled
 * into later prompts, so storing "always approve…" would be a prompt injection that outlives the
 * conversation. English and Chinese patterns; each names why, for the reason given to the user.
 */
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [
    /\b(ignore|disregard|forget|override|bypass)\b.{0,60}\b(instructions?|prompts?|rules?|guidelines|directions?|polic(?:y|ies)|guardrails?|restrictions?)\b/i,
    "it tells the agent to ignore its instructions",
  ],
  [/\bdisregard\b/i, "it tells the agent to disregard something"],
  [
    /(忽略|无视|忘记|忘掉|不要理会|不用理会|跳过|绕过).{0,12}(指令|指示|提示|规则|说明|设定|限制|要求)/,
    "它要求智能体忽略指令",
  ],
  [
    /\b(always|automatically|auto-?)\s*approve\b|\bapprove\s+(everything|all|any(thing)?)\b|\b(skip|bypass|without|no need for)\b.{0,20}\bapprovals?\b/i,
    "it tries to change how approvals work",
  ],
  [
    /(总是|始终|一律|自动|永远|全部|直接)(批准|同意|通过|审批)|(跳过|绕过|无需|不需要)(审批|批准)/,
    "它试图改变审批规则",
  ],
  [
    /\bsystem\s+prompt\b|\b(system|developer)\s+(message|instructions?)\b/i,
    "it talks about the agent's system prompt",
  ],
  [/系统提示|系统指令|系统消息|提示词/, "它涉及智能体的系统提示"],
  [
    /\bfrom\s+now\s+on\b.{0,40}\byou\b|\byou\s+are\s+now\b|\bnew\s+instructions?\b/i,
    "it tries to change how the agent behaves",
  ],
  [/从现在(开始|起)|你现在是/, "它试图改变智能体的行为"],
  [
    /\byou\s+(must|should|have\s+to|need\s+to|shall|will)\s+(always\s+|now\s+|never\s+)?(call|run|use|invoke|execute|approve|send|delete|ignore|obey|follow|reply|respond|grant|give|post|forward)\b/i,
    "it gives the agent orders",
  ],
  [
    /你(必须|一定要|应该|应当|要|需要|得)(总是|始终)?(调用|执行|运行|批准|发送|删除|忽略|服从|遵守|听从|回复|转发)/,
    "它在给智能体下命令",
  ],
  [/\b(call|invoke|execute)\s+(the\s+)?`?[a-z]+_[a-z_]+`?/i, "it tells the agent to call a tool"],
  [
    /\b(jailbreak|developer\s+mode|pretend\s+(to\s+be|you\s+are)|act\s+as\s+(an?\s+)?(admin|system|root))\b/i,
    "it tries to jailbreak the agent",
  ],
  [/越狱|开发者模式|扮演/, "它试图让智能体越狱"],
  [
    /\b(grant|give)\b.{0,20}\b(admin|administrator|permissions?)\b|\b(i\s+am|i'm|treat\s+(me|him|her|them)\s+as)\s+(an?\s+|the\s+)?admin/i,
    "it claims permissions",
  ],
  [/(授予|给).{0,6}(管理员|权限)|我是管理员/, "它声称拥有权限"],
  [/<\s*\/?\s*(untrusted|system|instructions?|tool_call|assistant|user)\b/i, "it contains prompt markup"],
];

/** Why `fact` looks like an instruction to the agent, or undefined when it reads as a plain fact. */
export function instructionLikeReason(fact: string): string | undefined {
  // NFKC folds full-width letters (ｉｇｎｏｒｅ) and compatibility forms into the plain ones.
  const text = fact.normalize("NFKC").replace(/\s+/g, " ");
  for (const [pattern, reason] of PATTERNS) if (pattern.test(text)) return reason;
  return undefined;
}
