import { BUTTON_STYLES, ELEMENT_TYPES, LIMITS, SELECT_TYPES, TEXT_OBJECT_TYPES } from "./block-kit-rules.ts";

/**
 * Collects Block Kit errors in Slack's wording: `<what is wrong> [json-pointer:/blocks/0/text/text]`.
 * Slack answers `invalid_blocks` with these strings in `errors` and `response_metadata.messages`.
 */
export class BlockErrors {
  readonly list: string[] = [];

  add(message: string, pointer: string): void {
    this.list.push(`${message} [json-pointer:${pointer}]`);
  }

  maxLength(value: unknown, max: number, pointer: string): void {
    if (typeof value === "string" && value.length > max)
      this.add(`must be less than ${max + 1} characters`, pointer);
  }

  maxItems(value: unknown, max: number, pointer: string): void {
    if (Array.isArray(value) && value.length > max) this.add(`no more than ${max} items allowed`, pointer);
  }

  required(obj: Record<string, unknown>, field: string, pointer: string): boolean {
    if (obj[field] !== undefined && obj[field] !== null) return true;
    this.add(`missing required field: ${field}`, pointer);
    return false;
  }
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A text object (`plain_text` or `mrkdwn`, or only `plain_text` when `plainOnly`) of at most `max` chars. */
export function checkText(
  errors: BlockErrors,
  value: unknown,
  pointer: string,
  { max, plainOnly = false }: { max: number; plainOnly?: boolean },
): void {
  if (!isObject(value)) {
    errors.add("must be a text object", pointer);
    return;
  }
  const allowed: readonly string[] = plainOnly ? ["plain_text"] : TEXT_OBJECT_TYPES;
  if (typeof value.type !== "string" || !allowed.includes(value.type)) {
    errors.add(`must be one of: ${allowed.join(", ")} (got ${String(value.type)})`, `${pointer}/type`);
    return;
  }
  if (typeof value.text !== "string") {
    errors.add("missing required field: text", `${pointer}/text`);
    return;
  }
  if (value.text.length === 0) errors.add("must be more than 0 characters", `${pointer}/text`);
  errors.maxLength(value.text, max, `${pointer}/text`);
}

function checkStyle(errors: BlockErrors, style: unknown, pointer: string): void {
  if (style !== undefined && !(BUTTON_STYLES as readonly unknown[]).includes(style)) {
    errors.add("must be a valid enum value (primary, danger)", pointer);
  }
}

/** A confirmation dialog: title ≤ 100, text ≤ 300, confirm/deny labels ≤ 30, style primary|danger. */
export function checkConfirm(errors: BlockErrors, value: unknown, pointer: string): void {
  if (!isObject(value)) {
    errors.add("must be a confirm object", pointer);
    return;
  }
  if (errors.required(value, "title", `${pointer}/title`)) {
    checkText(errors, value.title, `${pointer}/title`, { max: LIMITS.confirmTitle, plainOnly: true });
  }
  if (errors.required(value, "text", `${pointer}/text`)) {
    checkText(errors, value.text, `${pointer}/text`, { max: LIMITS.confirmText });
  }
  if (errors.required(value, "confirm", `${pointer}/confirm`)) {
    checkText(errors, value.confirm, `${pointer}/confirm`, { max: LIMITS.confirmButton, plainOnly: true });
  }
  if (errors.required(value, "deny", `${pointer}/deny`)) {
    checkText(errors, value.deny, `${pointer}/deny`, { max: LIMITS.confirmButton, plainOnly: true });
  }
  checkStyle(errors, value.style, `${pointer}/style`);
}

function checkOptions(errors: BlockErrors, options: unknown, pointer: string, max: number): void {
  if (!Array.isArray(options)) {
    errors.add("must be an array", pointer);
    return;
  }
  errors.maxItems(options, max, pointer);
  options.forEach((option, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(option)) {
      errors.add("must be an option object", at);
      return;
    }
    if (errors.required(option, "text", `${at}/text`)) {
      checkText(errors, option.text, `${at}/text`, { max: LIMITS.optionText });
    }
    errors.maxLength(option.value, LIMITS.optionValue, `${at}/value`);
  });
}

function checkButton(errors: BlockErrors, el: Json, at: string): void {
  if (errors.required(el, "text", `${at}/text`)) {
    checkText(errors, el.text, `${at}/text`, { max: LIMITS.buttonText, plainOnly: true });
  }
  errors.maxLength(el.value, LIMITS.buttonValue, `${at}/value`);
  errors.maxLength(el.url, LIMITS.url, `${at}/url`);
  errors.maxLength(el.accessibility_label, LIMITS.accessibilityLabel, `${at}/accessibility_label`);
  checkStyle(errors, el.style, `${at}/style`);
}

/** The image element (in context blocks and section accessories). */
export function checkImageElement(errors: BlockErrors, el: Json, at: string): void {
  if (el.image_url === undefined && el.slack_file === undefined) {
    errors.add("missing required field: image_url", `${at}/image_url`);
  }
  errors.maxLength(el.image_url, LIMITS.url, `${at}/image_url`);
  if (errors.required(el, "alt_text", `${at}/alt_text`))
    errors.maxLength(el.alt_text, LIMITS.imageAltText, `${at}/alt_text`);
}

/**
 * One element of a block, of a type in `allowed`. Checks the limits of its type and, for
 * interactive ones, `action_id` and `confirm`. Returns its action_id (for the uniqueness check).
 */
export function checkElement(
  errors: BlockErrors,
  el: unknown,
  at: string,
  allowed: readonly string[],
): string | undefined {
  if (!isObject(el) || typeof el.type !== "string") {
    errors.add("missing required field: type", `${at}/type`);
    return undefined;
  }
  if (!ELEMENT_TYPES.includes(el.type) || !allowed.includes(el.type)) {
    errors.add(`unsupported element type: ${el.type}`, `${at}/type`);
    return undefined;
  }
  if (el.type === "image") {
    checkImageElement(errors, el, at);
    return undefined;
  }
  errors.maxLength(el.action_id, LIMITS.actionId, `${at}/action_id`);
  if (el.confirm !== undefined) checkConfirm(errors, el.confirm, `${at}/confirm`);
  if (el.placeholder !== undefined) {
    checkText(errors, el.placeholder, `${at}/placeholder`, { max: LIMITS.placeholder, plainOnly: true });
  }
  if (el.type === "button") checkButton(errors, el, at);
  if (el.type === "overflow") checkOptions(errors, el.options, `${at}/options`, LIMITS.overflowOptions);
  if ((SELECT_TYPES as readonly string[]).includes(el.type) && el.options !== undefined) {
    checkOptions(errors, el.options, `${at}/options`, LIMITS.selectOptions);
  }
  if (el.type === "checkboxes" || el.type === "radio_buttons") {
    checkOptions(errors, el.options, `${at}/options`, 10);
  }
  if (
    el.type === "datepicker" &&
    el.initial_date !== undefined &&
    !/^\d{4}-\d{2}-\d{2}$/.test(String(el.initial_date))
  ) {
    errors.add("must match format YYYY-MM-DD", `${at}/initial_date`);
  }
  return typeof el.action_id === "string" ? el.action_id : undefined;
}
