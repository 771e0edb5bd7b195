import { checkModel } from "../../agent/model/model-check/check-model.ts";
import { apiBase } from "../../agent/model/model-check/endpoints.ts";
import { probeSpecs } from "../../agent/model/model-check/tool-call-probe.ts";
import type { Logger } from "../../core/logger.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import { accessSourcesOf } from "../access-deps.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import type { AccessServices } from "./access-answer.ts";
import { MODEL_REFUSAL, recordRefusal } from "./admin-refusal.ts";
import { textMessage } from "./block-builders.ts";
import { modelCheckMessage } from "./model-check-blocks.ts";

export type ModelAnswerServices = AccessServices & { storage: Pick<Storage, "audit">; logger: Logger };

const NO_MODEL =
  "No model is configured, so Hermes runs in command mode (`run <tool> …`). Set `OPENAI_BASE_URL`, `HERMES_MODEL` (and `OPENAI_API_KEY` if the server needs one), restart, and `/hermes model` checks it.";

/**
 * `/hermes model`, for admins: says the check started (`notify`, its own ephemeral message, since a
 * local model can take many seconds), probes the configured model with the registry's tool specs,
 * and answers with the report. Others get the admin-only refusal, logged and audited like `audit`.
 */
export async function modelAnswer(
  s: ModelAnswerServices,
  input: { userId: string; teamId?: string | undefined; channelId?: string | undefined },
  notify?: (message: SlackMessagePayload) => Promise<void>,
): Promise<SlackMessagePayload> {
  const access = await resolveAccess(accessSourcesOf(s), input.userId);
  if (access.level !== "admin") {
    await recordRefusal(s, { ...input, subcommand: "model", reason: MODEL_REFUSAL });
    return textMessage(MODEL_REFUSAL);
  }
  const model = s.config.model;
  if (!model) return textMessage(NO_MODEL);
  const specs = probeSpecs(s.runtime.registry.specs());
  const where = s.slack.redactor.redactSecrets(apiBase(model.baseURL));
  await notify?.(
    textMessage(
      `:hourglass_flowing_sand: Checking \`${model.model}\` at ${where} with the bot's ${specs.length} tool specs; the report follows in a moment.`,
    ),
  );
  const result = await checkModel({ model, specs });
  s.logger.info(
    {
      userId: input.userId,
      model: model.model,
      verdict: result.verdict.status,
      capabilities: result.capabilities,
      durationMs: result.durationMs,
    },
    "/hermes model checked the model",
  );
  return modelCheckMessage(result, s.slack.redactor.redactSecrets);
}
