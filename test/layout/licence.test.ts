// Fails when AGPL or GPL code could get into what the project ships: go.mod requirements, npm packages, Go modules.
// Runs in Node (vitest).
//
// The project is Apache-2.0 (LICENSE, package.json). k6 (AGPL-3.0) is a program the bundles run on, never a dependency:
// no go.mod of ours may require go.k6.io/k6. The Go checks read every go.mod git tracks, so they hold for whichever
// Go modules exist; the Go module check needs `go` and the dependencies in the module cache (go mod download).

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  copyleftRequirements, gnuLicenceIn, goDependencyProblems, goModProblems, isCopyleft, LICENCE_FILE, npmLicence,
  npmProblems,
  trackedGoModDirs,
} from './licences';

const ROOT = resolve(__dirname, '../..');

describe('isCopyleft', () => {
  it.each([
    ['MIT', false], ['Apache-2.0', false], ['(BSD-2-Clause OR MIT OR Apache-2.0)', false], ['MPL-2.0', false],
    ['GPL-3.0', true], ['GPL-2.0+', true], ['GPL-3.0-or-later', true], ['AGPL-3.0-only', true], ['LGPL-2.1', true],
    ['(MIT OR GPL-3.0)', false], ['LGPL-3.0 OR MIT', false], ['mit or gpl-2.0', false], ['GPL-2.0 OR LGPL-3.0', true],
    ['(MIT AND GPL-3.0)', true], ['MIT AND (Apache-2.0 OR GPL-2.0)', false], ['MIT OR (GPL-2.0 AND Apache-2.0)', false],
    ['GPL-2.0 WITH Classpath-exception-2.0', true], ['(GPL-2.0 WITH Classpath-exception-2.0) OR MIT', false],
    ['GPLv3', true], ['GNU GPL v3', true], ['GNU Lesser General Public License', true], ['UNLICENSED', false],
    ['SEE LICENSE IN LICENSE.md', false], ['LicenseRef-GPL-like', false], ['', false],
  ])('%j -> %s', (expression, expected) => {
    expect(isCopyleft(expression)).toBe(expected);
  });
});

describe('the parts of the checks', () => {
  it('reads npm licences, legacy lists as alternatives', () => {
    expect(npmLicence({ license: 'MIT' })).toBe('MIT');
    expect(npmLicence({ license: { type: 'GPL-2.0' } })).toBe('GPL-2.0');
    expect(npmLicence({ licenses: [{ type: 'MIT' }, { type: 'GPL-2.0' }] })).toBe('(MIT) OR (GPL-2.0)');
    expect(isCopyleft(npmLicence({ licenses: [{ type: 'GPL-2.0' }] })!)).toBe(true);
    expect(npmLicence({})).toBeUndefined();
  });

  it('finds known AGPL/GPL modules in require and replace directives, indirect ones too', () => {
    const goMod = [
      'module example.com/m', '', 'go 1.25', '', 'require golang.org/x/sys v0.46.0', 'require (',
      '\tgo.k6.io/k6 v1.8.1', '\tgithub.com/grafana/xk6-dashboard v0.8.1 // indirect', ')',
      'replace example.com/a => github.com/grafana/loki v1.0.0',
    ].join('\n');
    expect(copyleftRequirements(goMod)).toEqual([
      'go.k6.io/k6', 'github.com/grafana/xk6-dashboard', 'github.com/grafana/loki',
    ]);
    expect(copyleftRequirements('module example.com/m\n\nrequire golang.org/x/sys v0.46.0\n')).toEqual([]);
  });

  it('tells GNU licence texts from others, and licence files from source files', () => {
    expect(gnuLicenceIn('                    GNU AFFERO GENERAL PUBLIC LICENSE\n   Version 3')).toBe(
      'GNU AFFERO GENERAL PUBLIC LICENSE',
    );
    expect(gnuLicenceIn('GNU LESSER GENERAL PUBLIC\n  LICENSE')).toBe('GNU LESSER GENERAL PUBLIC LICENSE');
    // MPL-2.0 names the GNU licences as "Secondary Licenses", in lower case.
    expect(gnuLicenceIn('means either the GNU General Public License, Version 2.0, the GNU Lesser')).toBeUndefined();
    expect(gnuLicenceIn('Permission is hereby granted, free of charge')).toBeUndefined();
    for (const name of ['LICENSE', 'LICENSE.md', 'LICENCE.txt', 'COPYING', 'COPYING.LESSER', 'LICENSE-MIT']) {
      expect(LICENCE_FILE.test(name), name).toBe(true);
    }
    for (const name of ['license.go', 'license_test.go', 'README.md'])
      expect(LICENCE_FILE.test(name), name).toBe(false);
  });
});

describe('the project', () => {
  it('is Apache-2.0: LICENSE holds the licence and package.json says so', () => {
    expect(readFileSync(resolve(ROOT, 'LICENSE'), 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect((JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { license?: string }).license).toBe(
      'Apache-2.0',
    );
  });

  it('no go.mod requires go.k6.io/k6 or another module known to be AGPL/GPL', () => {
    expect(goModProblems(ROOT)).toEqual([]);
  });

  it('no npm package of package-lock.json (prod or dev) is only under AGPL, GPL or LGPL', () => {
    expect(npmProblems(ROOT)).toEqual([]);
  });

  it.each(trackedGoModDirs(ROOT))('every Go module %s depends on has a licence file, and none is AGPL/GPL', (dir) => {
    expect(goDependencyProblems(ROOT, dir)).toEqual([]);
  }, 240_000);
});
