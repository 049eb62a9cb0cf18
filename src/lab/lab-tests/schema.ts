// The JSON Schema of one entry of a lab file's `tests:` list (part of the lab file's schema).

const DURATION = { type: ['string', 'number'], description: 'a duration: 30s, 500ms, 2m, or a number of seconds' };
const TEXTS = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };
const NODE = { type: 'string', minLength: 1, description: 'a node of the lab' };

export const LAB_TEST_SCHEMA = {
  type: 'object',
  description: 'a test: name, one of exec/ping/console, expectations on its output, timing',
  properties: {
    name: { type: 'string', minLength: 1, description: 'the name reports give the test' },
    exec: {
      type: 'object',
      description: "run a command on a node through the exec route (docker nodes): its output and exit status are checked",
      properties: { node: NODE, command: { type: 'string', minLength: 1 } },
      required: ['command'],
      additionalProperties: false,
    },
    ping: { type: 'string', minLength: 1, description: 'A:B (A pings B, a node with ip: or an IPv4 address), all (every pair of hosts), or with nodes: the target only' },
    console: {
      type: 'object',
      description: 'send a line to a node\'s console (VPCS, a serial console) and read what it prints until its prompt',
      properties: { node: NODE, send: { type: 'string', minLength: 1 }, expect: { type: 'string', description: 'text the output must hold' } },
      required: ['send'],
      additionalProperties: false,
    },
    exit: { type: 'integer', description: 'the exit status expected' },
    contains: { ...TEXTS, description: 'text (or texts) the output must hold' },
    not_contains: { ...TEXTS, description: 'text (or texts) the output must not hold' },
    regex: { type: 'string', description: 'a JavaScript regular expression the output must match (multiline)' },
    json: {
      type: 'object',
      description: 'the output is JSON: the value at path equals a value, or is (a number, or a list or object counted) between min and max',
      properties: { path: { type: 'string', description: 'keys and indexes: neighbors, routes["198.18.101.0/24"][0].prefix' }, equals: {}, min: { type: 'number' }, max: { type: 'number' } },
      required: ['path'],
      additionalProperties: false,
    },
    retry: { ...DURATION, description: 'keep trying until the test passes or this time is up' },
    wait: { ...DURATION, description: 'pause this long before the test' },
    level: { enum: ['error', 'warning'], description: 'warning: a failure is reported without failing the run' },
    stop_on_error: { type: 'boolean', description: 'end the run when this test fails' },
    nodes: { type: 'array', items: NODE, minItems: 1, description: 'run the test on each of these nodes' },
  },
  required: ['name'],
  additionalProperties: false,
} as const;
