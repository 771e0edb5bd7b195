import { type BLOCK_TYPES, INPUT_ELEMENT_TYPES, INTERACTIVE_TYPES, LIMITS } from "./block-kit-rules.ts";
import { checkContextActions } from "./validate-context-actions.ts";
import { checkDataBlocksPerMessage, checkDataTable, checkDataVisualization } from "./validate-data-blocks.ts";
import {
  BlockErrors,
  checkElement,
  checkImageElement,
  checkText,
  isObject,
  type Json,
} from "./validate-elements.ts";

export interface ValidateBlocksOptions {
  /** 50 for messages, 100 for modals and App Home. */
  maxBlocks: number;
  /** Where the blocks sit in the request, for the json-pointer in messages: `/blocks` or `/view/blocks`. */
  pointer?: string;
}

/**
 * Checks a `blocks` array as Slack does before posting it. Returns Slack's error strings; an empty
 * array means Slack would accept it. Unknown block or element types are errors, as are duplicate
 * block_ids in the array and duplicate action_ids within one block.
 */
export function validateBlocks(
  blocks: unknown[],
  { maxBlocks, pointer = "/blocks" }: ValidateBlocksOptions,
): string[] {
  const errors = new BlockErrors();
  errors.maxItems(blocks, maxBlocks, pointer);
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(block) || typeof block.type !== "string") {
      errors.add("missing required field: type", `${at}/type`);
      return;
    }
    if (block.block_id !== undefined) {
      if (typeof block.block_id !== "string" || block.block_id.length === 0) {
        errors.add("must be a non-empty string", `${at}/block_id`);
      } else {
        errors.maxLength(block.block_id, LIMITS.blockId, `${at}/block_id`);
        if (blockIds.has(block.block_id))
          errors.add(`duplicate block_id: ${block.block_id}`, `${at}/block_id`);
        blockIds.add(block.block_id);
      }
    }
    const check = BLOCK_CHECKS[block.type as (typeof BLOCK_TYPES)[number]];
    if (!check) {
      errors.add(`unsupported block type: ${block.type}`, `${at}/type`);
      return;
    }
    check(errors, block, at);
  });
  checkDataBlocksPerMessage(errors, blocks, pointer);
  return errors.list;
}

type BlockCheck = (errors: BlockErrors, block: Json, at: string) => void;

const BLOCK_CHECKS: Record<(typeof BLOCK_TYPES)[number], BlockCheck> = {
  section(errors, block, at) {
    if (block.text === undefined && block.fields === undefined) {
      errors.add("must provide either text or fields", at);
    }
    if (block.text !== undefined) checkText(errors, block.text, `${at}/text`, { max: LIMITS.sectionText });
    if (block.fields !== undefined) {
      if (!Array.isArray(block.fields)) return errors.add("must be an array", `${at}/fields`);
      errors.maxItems(block.fields, LIMITS.sectionFields, `${at}/fields`);
      block.fields.forEach((field, j) => {
        checkText(errors, field, `${at}/fields/${j}`, { max: LIMITS.sectionFieldText });
      });
    }
    if (block.accessory !== undefined) {
      checkElement(errors, block.accessory, `${at}/accessory`, [...INTERACTIVE_TYPES, "image"]);
    }
  },
  header(errors, block, at) {
    if (errors.required(block, "text", `${at}/text`)) {
      checkText(errors, block.text, `${at}/text`, { max: LIMITS.headerText, plainOnly: true });
    }
  },
  context(errors, block, at) {
    if (!Array.isArray(block.elements) || block.elements.length === 0) {
      return errors.add("must provide at least 1 element", `${at}/elements`);
    }
    errors.maxItems(block.elements, LIMITS.contextElements, `${at}/elements`);
    block.elements.forEach((el, j) => {
      const elAt = `${at}/elements/${j}`;
      if (isObject(el) && el.type === "image") checkImageElement(errors, el, elAt);
      else checkText(errors, el, elAt, { max: LIMITS.sectionText });
    });
  },
  divider() {},
  actions(errors, block, at) {
    if (!Array.isArray(block.elements) || block.elements.length === 0) {
      return errors.add("must provide at least 1 element", `${at}/elements`);
    }
    errors.maxItems(block.elements, LIMITS.actionsElements, `${at}/elements`);
    const actionIds = new Set<string>();
    block.elements.forEach((el, j) => {
      const actionId = checkElement(errors, el, `${at}/elements/${j}`, INTERACTIVE_TYPES);
      if (actionId === undefined) return;
      if (actionIds.has(actionId))
        errors.add(`duplicate action_id: ${actionId}`, `${at}/elements/${j}/action_id`);
      actionIds.add(actionId);
    });
  },
  image(errors, block, at) {
    checkImageElement(errors, block, at);
    if (block.title !== undefined) {
      checkText(errors, block.title, `${at}/title`, { max: LIMITS.imageTitle, plainOnly: true });
    }
  },
  rich_text(errors, block, at) {
    if (!Array.isArray(block.elements)) errors.add("missing required field: elements", `${at}/elements`);
  },
  input(errors, block, at) {
    if (errors.required(block, "label", `${at}/label`)) {
      checkText(errors, block.label, `${at}/label`, { max: LIMITS.inputLabel, plainOnly: true });
    }
    if (block.hint !== undefined)
      checkText(errors, block.hint, `${at}/hint`, { max: LIMITS.inputHint, plainOnly: true });
    if (errors.required(block, "element", `${at}/element`)) {
      checkElement(errors, block.element, `${at}/element`, INPUT_ELEMENT_TYPES);
    }
  },
  context_actions: checkContextActions,
  data_table: checkDataTable,
  data_visualization: checkDataVisualization,
  markdown(errors, block, at) {
    if (typeof block.text !== "string") return errors.add("missing required field: text", `${at}/text`);
    if (block.text.length === 0) errors.add("must be more than 0 characters", `${at}/text`);
    errors.maxLength(block.text, LIMITS.markdownText, `${at}/text`);
  },
};
