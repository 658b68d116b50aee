// The few globals the engine uses, as every runtime it runs in (Node, browsers, Web Workers)
// provides them. Only engine/tsconfig.json reads this file: it proves the engine needs neither
// Node's nor the DOM's types. Other projects see the full declarations from their own libraries.

interface TextDecodeOptions {
  stream?: boolean;
}
interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}
interface TextDecoder {
  readonly encoding: string;
  decode(input?: ArrayBufferView | ArrayBuffer, options?: TextDecodeOptions): string;
}
declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: TextDecoderOptions): TextDecoder;
};

interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}
interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array<ArrayBuffer>;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}
declare var TextEncoder: {
  prototype: TextEncoder;
  new (): TextEncoder;
};

declare var performance: { now(): number };
declare function setTimeout(callback: () => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
declare function queueMicrotask(callback: () => void): void;
