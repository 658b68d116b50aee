// What the bridge reads is untyped JSON (host answers, MCP arguments, client config files): this
// is the one test for "a JSON object", which excludes null and arrays.
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
