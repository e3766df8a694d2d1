/**
 * A small incremental (push) JSON parser: feed it text in chunks of any size and it reports
 * SAX-style events, so arrays of any length can be consumed row by row without holding the
 * document in memory. It checks the full JSON grammar and, as an extension that Python's
 * `json.dump` produces, accepts the bare words `NaN`, `Infinity` and `-Infinity` as numbers.
 */

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

/** Incremental JSON parser: `feed` chunks, then `end`. */
export class JsonStreamParser {
  /** Current line (1-based), for error messages. */
  line = 1;
  private state = VALUE;
  private readonly stack: number[] = [];
  /** Text of a string or bare token cut by the end of the previous chunk. */
  private pending = '';

  constructor(private readonly handler: JsonHandler) {}

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

  /** Parses the next chunk of text. */
  feed(chunk: string): void {
    let text = chunk;
    if (this.pending) {
      text = this.pending + chunk;
      this.pending = '';
    }
    const n = text.length;
    const h = this.handler;
    let i = 0;
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
          this.stack.push(OBJ);
          this.state = KEY_OR_END;
          h.startObject();
          i++;
          break;
        case 91: // [
          this.expectValue('"["');
          this.stack.push(ARR);
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
          // a string: find the closing quote, skipping escapes
          let j = i + 1;
          for (;;) {
            const q = text.indexOf('"', j);
            if (q < 0) {
              j = -1;
              break;
            }
            let bs = 0;
            for (let b = q - 1; b > i && text.charCodeAt(b) === 92; b--) bs++;
            if (bs % 2 === 0) {
              j = q;
              break;
            }
            j = q + 1;
          }
          if (j < 0) {
            this.pending = text.slice(i);
            return;
          }
          const raw = text.slice(i, j + 1);
          let value: string;
          try {
            value = JSON.parse(raw) as string;
          } catch {
            return this.fail(`bad string ${show(raw)}`);
          }
          if (this.state === KEY || this.state === KEY_OR_END) {
            h.key(value);
            this.state = COLON;
          } else {
            this.expectValue(`the string ${show(value)}`);
            h.scalar('string', value);
            this.afterValue();
          }
          i = j + 1;
          break;
        }
        default: {
          if (!isBare(c)) this.unexpected(show(text[i]));
          let j = i + 1;
          while (j < n && isBare(text.charCodeAt(j))) j++;
          if (j === n) {
            this.pending = text.slice(i);
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
    if (this.pending) {
      const p = this.pending;
      this.pending = '';
      if (p.charCodeAt(0) === 34) this.fail('unterminated string');
      this.bare(p);
    }
    if (this.state !== DONE)
      this.fail(
        this.stack.length ? 'unexpected end of file (unclosed array or object)' : 'the file holds no JSON value',
      );
  }
}
