import { CONTEXT_ACTIONS_ELEMENT_TYPES, LIMITS } from "./block-kit-rules.ts";
import { type BlockErrors, checkConfirm, checkText, isObject, type Json } from "./validate-elements.ts";

/**
 * A `context_actions` block as Slack checks it: 1–5 elements, each `feedback_buttons` (a positive
 * and a negative button, each plain_text ≤ 75, a value ≤ 2000, an accessibility label ≤ 75) or
 * `icon_button` (an icon and plain_text), action_ids unique within the block.
 */
export function checkContextActions(errors: BlockErrors, block: Json, at: string): void {
  if (!Array.isArray(block.elements) || block.elements.length === 0) {
    errors.add("must provide at least 1 element", `${at}/elements`);
    return;
  }
  errors.maxItems(block.elements, LIMITS.contextActionsElements, `${at}/elements`);
  const actionIds = new Set<string>();
  block.elements.forEach((el, j) => {
    const elAt = `${at}/elements/${j}`;
    if (!isObject(el) || typeof el.type !== "string") {
      errors.add("missing required field: type", `${elAt}/type`);
      return;
    }
    if (!(CONTEXT_ACTIONS_ELEMENT_TYPES as readonly string[]).includes(el.type)) {
      errors.add(`unsupported element type: ${el.type}`, `${elAt}/type`);
      return;
    }
    errors.maxLength(el.action_id, LIMITS.actionId, `${elAt}/action_id`);
    if (typeof el.action_id === "string") {
      if (actionIds.has(el.action_id))
        errors.add(`duplicate action_id: ${el.action_id}`, `${elAt}/action_id`);
      actionIds.add(el.action_id);
    }
    if (el.type === "feedback_buttons") {
      for (const side of ["positive_button", "negative_button"] as const) {
        if (errors.required(el, side, `${elAt}/${side}`))
          checkFeedbackButton(errors, el[side], `${elAt}/${side}`);
      }
    } else checkIconButton(errors, el, elAt);
  });
}

function checkFeedbackButton(errors: BlockErrors, button: unknown, at: string): void {
  if (!isObject(button)) {
    errors.add("must be a button object", at);
    return;
  }
  if (errors.required(button, "text", `${at}/text`))
    checkText(errors, button.text, `${at}/text`, { max: LIMITS.feedbackButtonText, plainOnly: true });
  if (errors.required(button, "value", `${at}/value`)) {
    if (typeof button.value !== "string") errors.add("must be a string", `${at}/value`);
    else errors.maxLength(button.value, LIMITS.feedbackButtonValue, `${at}/value`);
  }
  errors.maxLength(button.accessibility_label, LIMITS.accessibilityLabel, `${at}/accessibility_label`);
}

function checkIconButton(errors: BlockErrors, el: Json, at: string): void {
  if (errors.required(el, "icon", `${at}/icon`) && typeof el.icon !== "string")
    errors.add("must be a string", `${at}/icon`);
  if (errors.required(el, "text", `${at}/text`))
    checkText(errors, el.text, `${at}/text`, { max: LIMITS.buttonText, plainOnly: true });
  errors.maxLength(el.value, LIMITS.buttonValue, `${at}/value`);
  errors.maxLength(el.accessibility_label, LIMITS.accessibilityLabel, `${at}/accessibility_label`);
  if (el.confirm !== undefined) checkConfirm(errors, el.confirm, `${at}/confirm`);
}
