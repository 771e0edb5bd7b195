import { type ScreeningOptions, screeningView } from "../../core/normalize-text.ts";
import { FOREIGN_PATTERNS } from "./instruction-patterns.ts";

/**
 * Facts that read like orders to the agent are refused before they are stored: a memory is recalled
 * into later prompts, so storing "always approve…" would be a prompt injection that outlives the
 * conversation. Patterns in English and Chinese here, other languages in instruction-patterns.ts; each names why, for the reason given to the user.
 */
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [
    /\bwithout\s+((asking\s+for\s+|any\s+|a\s+)?confirmation|confirming|(asking|checking\s+with)\s+(me|anyone|the\s+user|first))\b|\b(no\s+need\s+to|don'?t|do\s+not|never)\s+(ask\s+(me\s+)?(for\s+)?|wait\s+for\s+)(confirmation|approval)\b|\bno\s+confirmation\s+(is\s+)?(needed|required)\b/i,
    "it tells the agent to act without confirmation",
  ],
  [
    /\bfrom\s+now\s+on\b.{0,60}\b(always|automatically|directly|immediately|every|all)\b.{0,40}\b(delete|execute|run|approve|send|close|remove|grant|post|forward)\b/i,
    "it tries to change how the agent behaves",
  ],
  [
    /\b(ignore|disregard|forget|override|bypass)\b.{0,60}\b(instructions?|prompts?|rules?|guidelines|directions?|polic(?:y|ies)|guardrails?|restrictions?)\b/i,
    "it tells the agent to ignore its instructions",
  ],
  [/\bdisregard\b/i, "it tells the agent to disregard something"],
  [
    /(忽略|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不用理会|不用理會|跳过|跳過|绕过|繞過).{0,12}(指令|指示|提示|规则|規則|说明|說明|设定|設定|限制|要求)/,
    "它要求智能体忽略指令",
  ],
  [
    /\b(always|automatically|auto-?)\s*approve\b|\bapprove\s+(everything|all|any(thing)?)\b|\b(skip|bypass|without|no need for)\b.{0,20}\bapprovals?\b/i,
    "it tries to change how approvals work",
  ],
  [
    /(总是|總是|始终|始終|一律|自动|自動|永远|永遠|全部|直接)(批准|同意|通过|通過|审批|審批)|(跳过|跳過|绕过|繞過|无需|無需|不需要)(审批|審批|批准)/,
    "它试图改变审批规则",
  ],
  [
    /\bsystem\s+prompt\b|\b(system|developer)\s+(message|instructions?)\b/i,
    "it talks about the agent's system prompt",
  ],
  [/系统提示|系統提示|系统指令|系統指令|系统消息|系統消息|提示词|提示詞/, "它涉及智能体的系统提示"],
  [
    /\bfrom\s+now\s+on\b.{0,40}\byou\b|\byou\s+are\s+now\b|\bnew\s+instructions?\b/i,
    "it tries to change how the agent behaves",
  ],
  [/(从|從)现在(开始|起)|(从|從)現在(開始|起)|你(现|現)在是/, "它试图改变智能体的行为"],
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
  ...FOREIGN_PATTERNS,
];

/**
 * The same orders with the spaces squeezed out, for text written letter by letter
 * (`i g n o r e p r e v i o u s …`), where the word breaks are lost when the letters are joined.
 */
const SQUEEZED: ReadonlyArray<[RegExp, string]> = [
  [
    /(ignore|disregard|forget|override|bypass)(all|any|the|your|my|previous|prior|above|earlier|these|those|system)*(instructions?|prompts?|rules?|guidelines|directions?|polic(y|ies)|guardrails?|restrictions?)/,
    "it tells the agent to ignore its instructions",
  ],
  [
    /(always|auto)approve|approve(everything|all)|(skip|bypass)approvals?/,
    "it tries to change how approvals work",
  ],
  [
    /systemprompt|(system|developer)(message|instructions?)|newinstructions?|fromnowon|youarenow/,
    "it talks about the agent's system prompt",
  ],
  [/jailbreak|developermode/, "it tries to jailbreak the agent"],
];

/** The ways a fact is read: as written, then as a reader sees it (both readings of `І`), then joined. */
const READINGS: readonly ScreeningOptions[] = [
  { decode: true, foldConfusables: true, lowerCase: true, dropMarks: true },
  { decode: true, foldConfusables: true, lowerCase: true, dropMarks: true, ambiguousAsI: true },
  // Other scripts unfolded: a Russian or Greek instruction is read in its own letters.
  { decode: true, lowerCase: true, dropMarks: true },
];

/**
 * Why `fact` looks like an instruction to the agent, or undefined when it reads as a plain fact.
 * The patterns run on the text as a reader sees it: NFKC (full-width ｉｇｎｏｒｅ), invisible characters
 * removed (ig\u200Bnore), look-alike letters folded (Cyrillic іgnоrе, and `І` read as `i` as well as
 * `l`), combining marks dropped (strikethrough i̶g̶n̶o̶r̶e̶, accents), escapes decoded (&lt;system&gt;,
 * \u003c, %3C) and spaced-out letters joined (i g n o r e) — in English, Chinese, Japanese, Korean,
 * Spanish, French, German, Portuguese and Russian.
 */
export function instructionLikeReason(fact: string): string | undefined {
  const plain = fact.normalize("NFKC").replace(/\s+/g, " ");
  const texts = new Set([plain]);
  const spaced: Array<{ view: string; joined: string }> = [];
  for (const options of READINGS) {
    const view = screeningView(fact, options).text;
    const joined = screeningView(fact, { ...options, joinSpacedLetters: true }).text;
    texts.add(view).add(joined);
    spaced.push({ view, joined });
  }
  for (const text of texts) {
    for (const [pattern, reason] of PATTERNS) if (pattern.test(text)) return reason;
  }
  // Joined letters lost their word breaks only where the writer spaced them out: squeeze then.
  for (const { view, joined } of spaced) {
    if (joined.replace(/ {2,}/g, " ") === view) continue;
    const squeezed = joined.replace(/[^\p{L}\p{N}]+/gu, "");
    for (const [pattern, reason] of SQUEEZED) if (pattern.test(squeezed)) return reason;
  }
  return undefined;
}
