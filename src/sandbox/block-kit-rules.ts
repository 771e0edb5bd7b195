/** The Block Kit limits the emulator enforces (docs.slack.dev Block Kit reference; SLACK-FACTS.md). */
export const LIMITS = {
  blocksPerMessage: 50,
  blocksPerView: 100,
  blockId: 255,
  actionId: 255,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  markdownText: 12_000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  accessibilityLabel: 75,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  imageAltText: 2000,
  imageTitle: 2000,
  inputLabel: 2000,
  inputHint: 2000,
  placeholder: 150,
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  overflowOptions: 5,
  contextActionsElements: 5,
  feedbackButtonText: 75,
  feedbackButtonValue: 2000,
  dataTableRows: 101,
  dataTableColumns: 20,
  /** Characters across a table's cells, and across all tables of one message. */
  dataTableChars: 10_000,
  dataTablePageSize: 100,
  dataVisualizationTitle: 50,
  dataVisualizationsPerMessage: 2,
  chartSeries: 6,
  chartSegments: 6,
  chartCategories: 20,
  chartLabel: 20,
  chartAxisLabel: 50,
  postMessageText: 40_000,
  updateText: 4000,
} as const;

export const BLOCK_TYPES = [
  "section",
  "header",
  "context",
  "divider",
  "actions",
  "image",
  "rich_text",
  "input",
  "markdown",
  "context_actions",
  "data_table",
  "data_visualization",
] as const;

/** Cells of a `data_table`: `rich_text` is not allowed in the header row. */
export const DATA_TABLE_CELL_TYPES = ["raw_text", "raw_number", "rich_text"] as const;

export const CHART_TYPES = ["pie", "bar", "area", "line"] as const;

export const SELECT_TYPES = [
  "static_select",
  "multi_static_select",
  "external_select",
  "multi_external_select",
  "users_select",
  "multi_users_select",
  "conversations_select",
  "multi_conversations_select",
  "channels_select",
  "multi_channels_select",
] as const;

/** Interactive elements allowed in an `actions` block and as a section accessory (plus `image` there). */
export const INTERACTIVE_TYPES = [
  "button",
  ...SELECT_TYPES,
  "overflow",
  "datepicker",
  "timepicker",
  "datetimepicker",
  "checkboxes",
  "radio_buttons",
] as const;

export const INPUT_ELEMENT_TYPES = [
  ...SELECT_TYPES,
  "plain_text_input",
  "email_text_input",
  "url_text_input",
  "number_input",
  "rich_text_input",
  "file_input",
  "datepicker",
  "timepicker",
  "datetimepicker",
  "checkboxes",
  "radio_buttons",
] as const;

export const ELEMENT_TYPES = [...new Set<string>([...INTERACTIVE_TYPES, ...INPUT_ELEMENT_TYPES, "image"])];

export const TEXT_OBJECT_TYPES = ["plain_text", "mrkdwn"] as const;

export const BUTTON_STYLES = ["primary", "danger"] as const;

/** What a `context_actions` block may hold (Slack's agent surfaces: 👍/👎 and small icon buttons). */
export const CONTEXT_ACTIONS_ELEMENT_TYPES = ["feedback_buttons", "icon_button"] as const;
