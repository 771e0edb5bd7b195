/**
 * Instruction patterns in languages beyond English: "ignore the previous instructions", "from now on
 * always …", "without confirmation" and "system prompt", in Chinese, Japanese, Korean, Spanish,
 * French, German, Portuguese and Russian. "From now on" counts only with a sweep (all, always,
 * automatically) and an action the agent could take (delete, execute, approve, send): "from now on
 * the office opens at 9" is a fact. Each names why, in its own language where that helps the user.
 * Patterns match the fact as written and as screened (lower case, marks dropped), so accented
 * letters are written both ways (`confirmaci[oó]n`).
 */
/**
 * "From now on" (`lead`) followed, within a sentence or so, by a sweep and an action in either order:
 * "désormais, approuve toujours …" as well as "a partir de ahora siempre elimina …".
 */
function fromNowOn(lead: string, sweep: string, action: string): RegExp {
  return new RegExp(`(${lead}).{0,60}((${sweep}).{0,40}(${action})|(${action}).{0,40}(${sweep}))`, "iu");
}

export const FOREIGN_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // Chinese (simplified and traditional)
  [
    /(以后|以後|今后|今後|往后|往後|此后|此後|从此|從此|从今天起|從今天起|从现在起|從現在起)[^。！？.!?]{0,20}(所有|全部|一律|都|总是|總是|一直|每次|任何)[^。！？.!?]{0,20}(执行|執行|删除|刪除|批准|同意|通过|通過|发送|發送|调用|調用|运行|運行|关闭|關閉|转发|轉發|授权|授權|忽略)/u,
    "它试图改变智能体以后的行为",
  ],
  [
    /(不用|无需|無需|不需要|不必|无须|無須|免|跳过|跳過|不要|别|別)再?(确认|確認|审批|審批|询问|詢問|请示|請示|问我|問我)/u,
    "它要求智能体不经确认就执行",
  ],
  // Japanese
  [
    /(指示|命令|ルール|指令|プロンプト|設定)(を|は)?(すべて|全て|全部)?(無視|忘れ)/u,
    "指示を無視させようとしています",
  ],
  [
    /(今後|これから|以後|今から)[^。！？]{0,20}(常に|必ず|すべて|全て|いつも|全部|自動)[^。！？]{0,20}(実行|削除|承認|送信|許可|転送)/u,
    "今後の動作を変えようとしています",
  ],
  [
    /確認(なし|無し|せず|不要|しないで|を取らず|は不要)|(承認|許可)(なし|無し|せず|不要)/u,
    "確認なしで実行させようとしています",
  ],
  [/システムプロンプト/u, "システムプロンプトに触れています"],
  // Korean
  [
    /(지시|명령|지침|규칙|프롬프트|설정)(을|를|은|는)?\s?(모두|전부)?\s?(무시|잊어)/u,
    "지시를 무시하게 하려고 합니다",
  ],
  [
    /(앞으로|지금부터|이제부터)[^.!?]{0,20}(항상|모든|무조건|전부|자동으로|바로)[^.!?]{0,20}(실행|삭제|승인|전송|보내|허가)/u,
    "앞으로의 동작을 바꾸려고 합니다",
  ],
  [/(확인|승인|허락)\s?(없이|하지\s?말고|안\s?하고|필요\s?없이)/u, "확인 없이 실행하게 하려고 합니다"],
  [/시스템\s?프롬프트/u, "시스템 프롬프트를 언급합니다"],
  // Spanish
  [
    /\b(ignora|ignore|ignorar|ignoren|olvida|olvide|olvidar|omite|omitir)\b.{0,40}(instrucciones|reglas|indicaciones|directrices|[oó]rdenes)/iu,
    "le pide al agente que ignore sus instrucciones",
  ],
  [
    fromNowOn(
      "a partir de ahora|de ahora en adelante|desde ahora",
      "siempre|todas?|todos?|autom[aá]ticamente|directamente",
      "ejecut|borr|elimin|aprueb|aprob|env[ií]",
    ),
    "intenta cambiar cómo actúa el agente",
  ],
  [/\bsin\s+(pedir\s+)?(confirmaci[oó]n|aprobaci[oó]n|confirmar)/iu, "pide actuar sin confirmación"],
  // French
  [
    /\b(ignore[sz]?|ignorer|oublie[sz]?|oublier)\b.{0,40}\b(instructions?|consignes?|r[eè]gles?|directives?)\b/iu,
    "il demande à l'agent d'ignorer ses instructions",
  ],
  [
    fromNowOn(
      "d[ée]sormais|dor[ée]navant|[aà] partir de maintenant|[aà] l'avenir",
      "toujours|tous|toutes|tout|automatiquement|directement",
      "ex[ée]cut|supprim|approuv|envoi|envoy|valid",
    ),
    "il tente de changer le comportement de l'agent",
  ],
  [
    /\bsans\s+(demander\s+)?(de\s+|la\s+|une\s+|aucune\s+)?(confirmation|approbation|validation|confirmer)\b/iu,
    "il demande d'agir sans confirmation",
  ],
  // German
  [
    /\b(ignorier\w*|vergiss|vergessen|missachte\w*)\b.{0,40}\b(anweisungen|regeln|vorgaben|instruktionen|richtlinien)\b|\b(anweisungen|regeln|vorgaben|instruktionen)\b.{0,30}\b(ignorieren|vergessen)\b/iu,
    "es fordert den Agenten auf, seine Anweisungen zu ignorieren",
  ],
  [
    fromNowOn(
      "ab jetzt|von nun an|ab sofort|k[üu]nftig|zuk[üu]nftig",
      "immer|alle|alles|automatisch|direkt|sofort",
      "l[öo]sch|genehmig|sende|schick|ausf[üu]hr|f[üu]hre",
    ),
    "es versucht, das Verhalten des Agenten zu ändern",
  ],
  [
    /\bohne\s+(r[üu]ckfrage|best[äa]tigung|genehmigung|freigabe|nachzufragen|zu\s+fragen)/iu,
    "es verlangt Handeln ohne Bestätigung",
  ],
  // Portuguese
  [
    /\b(ignore|ignora|ignorar|esque[çc]a|esquecer)\b.{0,40}(instru[çc][õo]es|regras|diretrizes|orienta[çc][õo]es)/iu,
    "pede ao agente que ignore suas instruções",
  ],
  [
    fromNowOn(
      "a partir de agora|de agora em diante|daqui para frente",
      "sempre|todas?|todos?|automaticamente|diretamente",
      "execut|apag|exclu|aprov|envi",
    ),
    "tenta mudar o comportamento do agente",
  ],
  [/\bsem\s+(pedir\s+)?(confirma[çc][ãa]o|aprova[çc][ãa]o|confirmar)/iu, "pede para agir sem confirmação"],
  // Russian
  [
    /(игнорируй|проигнорируй|игнорировать|забудь|забудьте|не обращай\s+внимания\s+на).{0,40}(инструкци|правил|указани|промпт)/iu,
    "просит агента игнорировать инструкции",
  ],
  [
    fromNowOn(
      "с этого момента|отныне|впредь|с сегодняшнего дня",
      "всегда|все|всё|автоматически|сразу|любые",
      "удаля|удали|выполня|выполни|одобря|одобри|отправля|отправь",
    ),
    "пытается изменить поведение агента",
  ],
  [
    /без\s+(подтверждени|одобрени|согласовани|спроса|лишних\s+вопросов)/iu,
    "просит действовать без подтверждения",
  ],
  [/системн\S*\s+(промпт|подсказк|инструкци)/iu, "касается системного промпта"],
];
