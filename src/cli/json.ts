/**
 * A small incremental (push) JSON parser: feed it text in chunks of any size and it reports
 * SAX-style events, so arrays of any length can be consumed row by row without holding the
 * document in memory. It checks the full JSON grammar and, as an extension that Python's
 * `json.dump` produces, accepts the bare words `NaN`, `Infinity` and `-Infinity` as numbers.
 */

import { MAX_DEPTH, MAX_LINE } from './formats/common';

/** What a scalar value was. */
export type JsonScalar = 'number' | 'string' | 'true' | 'false' | 'null';

/** Receives the events of {@link JsonStreamParser}; throwing from a handler aborts the parse. */
export interface JsonHandler {
  startObject(): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  /** An object key (decoded). */
  key(name: string): void;
  /** A scalar: for numbers `text` is the literal (parse it with `Number`), for strings the decoded text. */
  scalar(type: JsonScalar, text: string): void;
}

/** A JSON syntax error with the line it was found on. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly line: number,
  ) {
    super(`invalid JSON at line ${line}: ${detail}`);
    this.name = 'JsonSyntaxError';
  }
}

// parser states: what may come next
const VALUE = 0; // a value (top level, after ':' or after ',' in an array)
const VALUE_OR_END = 1; // a value or ']' (right after '[')
const KEY_OR_END = 2; // a key or '}' (right after '{')
const KEY = 3; // a key (after ',' in an object)
const COLON = 4;
const COMMA_OR_END = 5; // ',' or the container's end, after a value
const DONE = 6; // only whitespace until the end

const OBJ = 0;
const ARR = 1;

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function isBare(c: number): boolean {
  // letters, digits, '+', '-', '.'
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 45 || c === 46;
}

function show(text: string): string {
  return JSON.stringify(text.length > 24 ? text.slice(0, 24) + '…' : text);
}

/** Incremental JSON parser: `feed` chunks, then `end`. Linear in the text, however long a token. */
export class JsonStreamParser {
  /** Current line (1-based), for error messages. */
  line = 1;
  private state = VALUE;
  private readonly stack: number[] = [];
  /** A string or bare token cut by the end of a chunk: its parts so far, and their length. */
  private parts: string[] = [];
  private partLength = 0;
  /** What the cut token is: 0 none, 34 a string, 1 a bare token. */
  private open = 0;
  /** In a cut string, the last character was an unpaired backslash. */
  private escaped = false;

  constructor(
    private readonly handler: JsonHandler,
    /** Longest token (string or bare word), in characters. */
    private readonly maxToken = MAX_LINE,
  ) {}

  /** Nesting depth right now (0 at the top level). */
  get depth(): number {
    return this.stack.length;
  }

  private fail(detail: string): never {
    throw new JsonSyntaxError(detail, this.line);
  }

  private unexpected(what: string): never {
    const expected = [
      'a value',
      'a value or "]"',
      'a key or "}"',
      'a key',
      '":"',
      '"," or the end of the array/object',
      'the end of the file',
    ][this.state];
    return this.fail(`expected ${expected}, got ${what}`);
  }

  private expectValue(what: string): void {
    if (this.state !== VALUE && this.state !== VALUE_OR_END) this.unexpected(what);
  }

  private afterValue(): void {
    this.state = this.stack.length === 0 ? DONE : COMMA_OR_END;
  }

  private push(kind: number): void {
    if (this.stack.length >= MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels, the limit`);
    this.stack.push(kind);
  }

  /** Keeps the cut part of a token, within the token limit. */
  private keep(part: string): void {
    this.partLength += part.length;
    if (this.partLength > this.maxToken)
      this.fail(
        `a ${this.open === 34 ? 'string' : 'token'} longer than ${this.maxToken.toLocaleString('en-US')} characters, the limit for one token`,
      );
    this.parts.push(part);
  }

  /** The cut token completed by `last`. */
  private joined(last: string): string {
    this.keep(last);
    const token = this.parts.join('');
    this.parts = [];
    this.partLength = 0;
    this.open = 0;
    return token;
  }

  /** Index of the closing quote of a string at or after `from`, or −1; `escaped` carries over. */
  private scanString(text: string, from: number): number {
    const n = text.length;
    let esc = this.escaped;
    for (let j = from; j < n; j++) {
      const c = text.charCodeAt(j);
      if (esc) esc = false;
      else if (c === 92) esc = true;
      else if (c === 34) {
        this.escaped = false;
        return j;
      }
    }
    this.escaped = esc;
    return -1;
  }

  private string(raw: string): void {
    let value: string;
    try {
      value = JSON.parse(raw) as string;
    } catch {
      return this.fail(`bad string ${show(raw)}`);
    }
    if (this.state === KEY || this.state === KEY_OR_END) {
      this.handler.key(value);
      this.state = COLON;
    } else {
      this.expectValue(`the string ${show(value)}`);
      this.handler.scalar('string', value);
      this.afterValue();
    }
  }

  /** Parses the next chunk of text. */
  feed(text: string): void {
    const n = text.length;
    const h = this.handler;
    let i = 0;
    if (this.open === 34) {
      const q = this.scanString(text, 0);
      if (q < 0) {
        this.keep(text);
        return;
      }
      this.string(this.joined(text.slice(0, q + 1)));
      i = q + 1;
    } else if (this.open === 1) {
      let j = 0;
      while (j < n && isBare(text.charCodeAt(j))) j++;
      if (j === n) {
        this.keep(text);
        return;
      }
      this.bare(this.joined(text.slice(0, j)));
      i = j;
    }
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        this.line++;
        i++;
        continue;
      }
      if (c === 32 || c === 9 || c === 13) {
        i++;
        continue;
      }
      switch (c) {
        case 123: // {
          this.expectValue('"{"');
          this.push(OBJ);
          this.state = KEY_OR_END;
          h.startObject();
          i++;
          break;
        case 91: // [
          this.expectValue('"["');
          this.push(ARR);
          this.state = VALUE_OR_END;
          h.startArray();
          i++;
          break;
        case 125: // }
          if (this.state === KEY) this.fail('trailing comma before "}"');
          if (!(
            (this.state === KEY_OR_END || this.state === COMMA_OR_END) &&
            this.stack[this.stack.length - 1] === OBJ
          ))
            this.unexpected('"}"');
          this.stack.pop();
          h.endObject();
          this.afterValue();
          i++;
          break;
        case 93: // ]
          if (this.state === VALUE && this.stack[this.stack.length - 1] === ARR) this.fail('trailing comma before "]"');
          if (!(
            (this.state === VALUE_OR_END || this.state === COMMA_OR_END) &&
            this.stack[this.stack.length - 1] === ARR
          ))
            this.unexpected('"]"');
          this.stack.pop();
          h.endArray();
          this.afterValue();
          i++;
          break;
        case 44: // ,
          if (this.state !== COMMA_OR_END) this.unexpected('","');
          this.state = this.stack[this.stack.length - 1] === OBJ ? KEY : VALUE;
          i++;
          break;
        case 58: // :
          if (this.state !== COLON) this.unexpected('":"');
          this.state = VALUE;
          i++;
          break;
        case 34: {
          this.escaped = false;
          const q = this.scanString(text, i + 1);
          if (q < 0) {
            this.open = 34;
            this.keep(text.slice(i));
            return;
          }
          this.string(text.slice(i, q + 1));
          i = q + 1;
          break;
        }
        default: {
          if (!isBare(c)) this.unexpected(show(text[i]));
          let j = i + 1;
          while (j < n && isBare(text.charCodeAt(j))) j++;
          if (j === n) {
            this.open = 1;
            this.keep(text.slice(i));
            return;
          }
          this.bare(text.slice(i, j));
          i = j;
        }
      }
    }
  }

  private bare(token: string): void {
    this.expectValue(show(token));
    let type: JsonScalar;
    if (NUMBER.test(token) || token === 'NaN' || token === 'Infinity' || token === '-Infinity') type = 'number';
    else if (token === 'true' || token === 'false' || token === 'null') type = token;
    else return this.fail(`unexpected ${show(token)}`);
    this.handler.scalar(type, token);
    this.afterValue();
  }

  /** Signals the end of the text; throws if the document is incomplete. */
  end(): void {
    if (this.open === 34) this.fail('unterminated string');
    if (this.open === 1) this.bare(this.joined(''));
    if (this.state !== DONE)
      this.fail(
        this.stack.length ? 'unexpected end of file (unclosed array or object)' : 'the file holds no JSON value',
      );
  }
}
