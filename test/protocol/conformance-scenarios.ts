/**
 * What every server scenario of the two MCP conformance suites means for finance-mcp (reported per
 * scenario in docs/protocol.md). conformance.test.ts runs every scenario listed "run" on both engines and
 * fails when the suite lists a server scenario this table does not know, so a version bump cannot skip one
 * silently.
 *
 * - { run: true }: must have checks and no FAILURE (WARNING/INFO/SKIPPED allowed, e.g. a stateless server
 *   has no GET stream to poll).
 * - { run: true, failing: {check: reason} }: only these checks may fail, each because it needs a fixture
 *   the service does not have; every other check must pass.
 * - { run: true, noSuccess: reason }: no check can succeed here (only WARNING/INFO), none may fail.
 * - { skip: reason }: the scenario needs a feature or a fixture tool this service does not have.
 */
export type Expectation = { run: true; failing?: Record<string, string>; noSuccess?: string } | { skip: string };

const STATELESS = "stateless server: no session and no GET stream, so the suite only warns or informs";
const FIXTURE_TOOL = "needs the suite's fixture tool (test_*); a finance service exposes only its own tools";
const NO_LOGGING = "needs logging/setLevel: the server has no logging capability (logs go to its operator, never to the client)";
const NO_COMPLETION =
  "needs the suite's fixture prompt test_prompt_with_arguments; completion/complete itself is tested with the SDK clients (test/protocol/resources-prompts.test.ts)";
const FIXTURE_RESOURCE = "needs the suite's fixture resources (test://static-text, test://template/{id}/data, …); a finance service serves only its own";
const NO_SUBSCRIBE =
  "needs resources/subscribe: the server offers no subscriptions (a statement is read again; writes reach SSE clients as notifications/finance/changed)";
const FIXTURE_PROMPT = "needs the suite's fixture prompts (test_simple_prompt, test_prompt_with_arguments, …); a finance service serves only its own";
const NO_SAMPLING = "needs a tool that asks the client to sample (sampling); no finance tool does";
const NO_ELICITATION =
  'needs the suite\'s fixture tool (test_elicitation…); finance tools elicit only to confirm a destructive write (docs/protocol.md, "Confirmation through the client")';
const NO_TASKS = "tasks extension (with its fixture tools greet, slow_compute, …): not implemented, every tool answers synchronously";
const NO_INPUT_REQUIRED =
  "needs the suite's fixture tool returning InputRequiredResult; finance tools return one only to confirm a destructive write (test/protocol/elicitation.test.ts)";
const NO_2020_FIXTURE =
  "needs the fixture tool json_schema_2020_12_tool; tools/list schemas are checked against ajv's 2020-12 build in the codegen tests instead";

const common: Record<string, Expectation> = {
  "server-initialize": { run: true },
  ping: { run: true },
  "tools-list": { run: true },
  "dns-rebinding-protection": { run: true },
  "server-sse-polling": { run: true, noSuccess: STATELESS },
  "server-sse-multiple-streams": { run: true, noSuccess: STATELESS },
  "logging-set-level": { skip: NO_LOGGING },
  "completion-complete": { skip: NO_COMPLETION },
  "tools-call-simple-text": { skip: FIXTURE_TOOL },
  "tools-call-image": { skip: FIXTURE_TOOL },
  "tools-call-audio": { skip: FIXTURE_TOOL },
  "tools-call-embedded-resource": { skip: FIXTURE_TOOL },
  "tools-call-mixed-content": { skip: FIXTURE_TOOL },
  "tools-call-with-logging": { skip: NO_LOGGING },
  "tools-call-error": { skip: FIXTURE_TOOL },
  "tools-call-with-progress": { skip: FIXTURE_TOOL },
  "tools-call-sampling": { skip: NO_SAMPLING },
  "tools-call-elicitation": { skip: NO_ELICITATION },
  "json-schema-2020-12": { skip: NO_2020_FIXTURE },
  "elicitation-sep1034-defaults": { skip: NO_ELICITATION },
  "elicitation-sep1330-enums": { skip: NO_ELICITATION },
  "resources-list": { run: true },
  "resources-read-text": { skip: FIXTURE_RESOURCE },
  "resources-read-binary": { skip: FIXTURE_RESOURCE },
  "resources-templates-read": { skip: FIXTURE_RESOURCE },
  "resources-subscribe": { skip: NO_SUBSCRIBE },
  "resources-unsubscribe": { skip: NO_SUBSCRIBE },
  "prompts-list": { run: true },
  "prompts-get-simple": { skip: FIXTURE_PROMPT },
  "prompts-get-with-args": { skip: FIXTURE_PROMPT },
  "prompts-get-embedded-resource": { skip: FIXTURE_PROMPT },
  "prompts-get-with-image": { skip: FIXTURE_PROMPT },
};

/** @modelcontextprotocol/conformance 0.1.16: every server scenario. */
export const STABLE: Record<string, Expectation> = { ...common };

/** @modelcontextprotocol/conformance 0.2.0-alpha.12: every server scenario, the 2026-07-28 ones included. */
export const ALPHA: Record<string, Expectation> = {
  ...common,
  "server-session-lifecycle": { run: true, noSuccess: STATELESS },
  "server-stateless": {
    run: true,
    failing: {
      ServerRejectsUndeclaredCapability:
        "not testable without the fixture tool test_missing_capability (no finance tool needs a client capability, so -32021 is never sent)",
      MissingCapabilityHttp400: "not testable without the fixture tool test_missing_capability",
      HttpServerNoIndependentRequestsOnStream: "not testable without the fixture tool test_streaming_elicitation",
      ServerNoLogWithoutLogLevel: "not testable without the fixture tool test_logging_tool (no logging capability)",
    },
  },
  "http-header-validation": { run: true },
  caching: { run: true },
  "sep-2164-resource-not-found": { run: true },
  "http-custom-header-server-validation": {
    skip: "needs a tool with x-mcp-header annotations (SEP-2663 custom headers); no finance tool mirrors an argument into a header",
  },
  "sep-2640-skills-directory": { run: true },
  "sep-2640-skills-enumeration": { run: true },
  "sep-2640-skills-manifest": { run: true },
  "tasks-lifecycle": { skip: NO_TASKS },
  "tasks-capability-negotiation": { skip: NO_TASKS },
  "tasks-wire-fields": { skip: NO_TASKS },
  "tasks-request-state-removal": { skip: NO_TASKS },
  "tasks-mrtr-input": { skip: NO_TASKS },
  "tasks-request-headers": { skip: NO_TASKS },
  "tasks-dispatch-and-envelope": { skip: NO_TASKS },
  "tasks-status-notifications": { skip: NO_TASKS },
  "tasks-required-task-error": { skip: NO_TASKS },
  "tasks-mrtr-composition": { skip: NO_TASKS },
  "input-required-result-basic-elicitation": { skip: NO_INPUT_REQUIRED },
  "input-required-result-basic-sampling": { skip: NO_INPUT_REQUIRED },
  "input-required-result-basic-list-roots": { skip: NO_INPUT_REQUIRED },
  "input-required-result-request-state": { skip: NO_INPUT_REQUIRED },
  "input-required-result-multiple-input-requests": { skip: NO_INPUT_REQUIRED },
  "input-required-result-multi-round": { skip: NO_INPUT_REQUIRED },
  "input-required-result-missing-input-response": { run: true },
  "input-required-result-non-tool-request": { skip: `${NO_INPUT_REQUIRED}; it also needs a fixture prompt` },
  "input-required-result-result-type": { skip: NO_INPUT_REQUIRED },
  "input-required-result-unsupported-methods": { run: true },
  "input-required-result-tampered-state": { skip: NO_INPUT_REQUIRED },
  "input-required-result-capability-check": { skip: NO_INPUT_REQUIRED },
  "input-required-result-ignore-extra-params": { run: true },
  "input-required-result-validate-input": { run: true },
};
