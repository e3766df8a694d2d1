import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// TSDoc coverage of the public API as users' editors see it: the built declarations
// (dist/index.d.ts, made by `npm test`'s pretest). Every exported class, function, interface
// and type alias needs a doc comment with a summary; every exported class and function also
// an `@example`.

const root = fileURLToPath(new URL('..', import.meta.url));
const DTS = join(root, 'dist', 'index.d.ts');

type Kind = 'class' | 'function' | 'interface' | 'type alias' | 'enum' | 'variable' | 'namespace';
interface Declaration {
  kind: Kind;
  node: ts.Node;
}
interface Exported {
  /** Name users import. */
  name: string;
  /** Name of the declaration inside the .d.ts (differs for `export { a as b }`). */
  local: string;
}

function kindOf(node: ts.Statement): Kind | undefined {
  if (ts.isClassDeclaration(node)) return 'class';
  if (ts.isFunctionDeclaration(node)) return 'function';
  if (ts.isInterfaceDeclaration(node)) return 'interface';
  if (ts.isTypeAliasDeclaration(node)) return 'type alias';
  if (ts.isEnumDeclaration(node)) return 'enum';
  if (ts.isModuleDeclaration(node)) return 'namespace';
  return undefined;
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** Declarations by name, and what the file exports (`export { … }`, `export type { … }`, `export declare …`). */
function parse(
  text: string,
  fileName: string,
): { declarations: Map<string, Declaration[]>; exported: Exported[]; unresolved: string[] } {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const declarations = new Map<string, Declaration[]>();
  const exported: Exported[] = [];
  const unresolved: string[] = [];
  const add = (name: string, decl: Declaration, isExported: boolean): void => {
    declarations.set(name, [...(declarations.get(name) ?? []), decl]);
    if (isExported && !exported.some((e) => e.name === name)) exported.push({ name, local: name });
  };
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause)) {
        unresolved.push(st.getText(sf).slice(0, 120)); // a re-export from elsewhere: its docs are not in this file
        continue;
      }
      for (const el of st.exportClause.elements)
        exported.push({ name: el.name.text, local: (el.propertyName ?? el.name).text });
      continue;
    }
    const kind = kindOf(st);
    if (kind && (st as ts.DeclarationStatement).name) {
      add(((st as ts.DeclarationStatement).name as ts.Identifier).text, { kind, node: st }, hasExportModifier(st));
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name)) add(d.name.text, { kind: 'variable', node: st }, hasExportModifier(st));
      }
    }
  }
  return { declarations, exported, unresolved };
}

/** The JSDoc blocks of a declaration, without a file-level `@packageDocumentation` one. */
function docsOf(node: ts.Node): ts.JSDoc[] {
  return ts
    .getJSDocCommentsAndTags(node)
    .filter((d): d is ts.JSDoc => ts.isJSDoc(d))
    .filter((d) => !(d.tags ?? []).some((t) => t.tagName.text === 'packageDocumentation'));
}

function summaryOf(doc: ts.JSDoc): string {
  return (ts.getTextOfJSDocComment(doc.comment) ?? '').trim();
}

/** Where in src/ a public name is declared, for the failure message. */
function sourceFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const srcDir = join(root, 'src');
  for (const entry of readdirSync(srcDir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = join(srcDir, entry);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|function|interface|type|enum|const|let|namespace)\s+([A-Za-z_$][\w$]*)/gm,
    )) {
      if (!out.has(m[1])) out.set(m[1], relative(root, file));
    }
  }
  return out;
}

describe('TSDoc coverage of dist/index.d.ts', () => {
  const built = existsSync(DTS);
  const parsed = built ? parse(readFileSync(DTS, 'utf8'), DTS) : undefined;

  it('exists (npm test builds first) and exports the public API', () => {
    expect(built, `${DTS} not found: run \`npm run build\` (npm test does it first)`).toBe(true);
    expect(parsed?.unresolved, 'export statements whose declarations are not in the file').toEqual([]);
    expect(parsed?.exported.length).toBeGreaterThan(50);
    for (const { name, local } of parsed?.exported ?? [])
      expect(parsed?.declarations.has(local), `no declaration for the export ${name}`).toBe(true);
  });

  it('dist/index.d.cts exports the same names', () => {
    const cts = join(root, 'dist', 'index.d.cts');
    expect(existsSync(cts)).toBe(true);
    const names = (p: ReturnType<typeof parse> | undefined): string[] => (p?.exported ?? []).map((e) => e.name).sort();
    expect(names(parse(readFileSync(cts, 'utf8'), cts))).toEqual(names(parsed));
  });

  it('every exported class, function, interface and type alias has a TSDoc comment; classes and functions an @example', () => {
    expect(parsed, 'dist/index.d.ts not built').toBeDefined();
    const { declarations, exported } = parsed as NonNullable<typeof parsed>;
    const where = sourceFiles();
    const noDoc: string[] = [];
    const noExample: string[] = [];
    let checked = 0;
    for (const { name, local } of exported) {
      const decls = (declarations.get(local) ?? []).filter((d) => d.kind !== 'variable' && d.kind !== 'namespace');
      if (decls.length === 0) continue; // constants (METRIC_IDS, …) are not required to carry docs here
      checked++;
      const label = `${decls[0].kind} ${name} (${where.get(local) ?? 'src/?'})`;
      // every overload of a function shows its own doc in editors, so each needs one
      const undocumented = decls.filter((d) => !docsOf(d.node).some((doc) => summaryOf(doc).length > 0));
      if (undocumented.length > 0) {
        const which =
          decls.length > 1
            ? ` — overload ${undocumented.map((d) => decls.indexOf(d) + 1).join(', ')} of ${decls.length}`
            : '';
        noDoc.push(label + which);
      }
      const needsExample = decls.some((d) => d.kind === 'class' || d.kind === 'function');
      if (needsExample && !decls.some((d) => ts.getJSDocTags(d.node).some((t) => t.tagName.text === 'example')))
        noExample.push(label);
    }
    expect(checked).toBeGreaterThan(50);
    const report = [
      noDoc.length ? `without a TSDoc comment (${noDoc.length}):\n  ${noDoc.join('\n  ')}` : '',
      noExample.length
        ? `classes and functions without an @example (${noExample.length}):\n  ${noExample.join('\n  ')}`
        : '',
    ]
      .filter(Boolean)
      .join('\n');
    expect({ noDoc, noExample }, `exports of dist/index.d.ts lacking docs:\n${report}`).toEqual({
      noDoc: [],
      noExample: [],
    });
  });
});
