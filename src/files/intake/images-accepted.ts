import { checkedCapabilities } from "../../agent/model/model-check/capabilities.ts";
import { checkModelImages } from "../../agent/model/model-check/image-check.ts";
import type { Config } from "../../config.ts";

/**
 * Whether images people share are shown to the model: `HERMES_MODEL_IMAGES=on`/`off` say so; `auto`
 * follows what the model check found out about the configured model. When no check of it has run in
 * this process, the first image asks the model once (the check's picture probe: a 16×16 picture and
 * its colour) and the answer is remembered; concurrent turns share that one request. A model that
 * refuses or ignores the picture is not sent images: a text-only server would refuse the whole request.
 */
export function imagesAcceptedBy(config: Config): () => Promise<boolean> {
  const setting = config.env.HERMES_MODEL_IMAGES;
  const model = config.model;
  if (setting === "on") return async () => true;
  if (setting === "off" || !model) return async () => false;
  let probing: Promise<boolean> | undefined;
  return async () => {
    const known = checkedCapabilities(model)?.images;
    if (known === "yes" || known === "no") return known === "yes";
    probing ??= checkModelImages(model)
      .then(() => checkedCapabilities(model)?.images === "yes")
      .finally(() => {
        probing = undefined;
      });
    return probing;
  };
}
