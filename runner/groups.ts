// The group/check tree k6 builds while a test runs (lib/models.go), as summaries report it. Runs in Node.
import { createHash } from 'node:crypto';

export interface CheckNode {
  readonly name: string;
  readonly path: string;
  readonly id: string;
  passes: number;
  fails: number;
}

export interface GroupNode {
  readonly name: string;
  readonly path: string;
  readonly id: string;
  readonly groups: GroupNode[];
  readonly checks: CheckNode[];
}

/** k6 ids are the md5 of the path ("" for the root group, "::name" below it). */
function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

export class GroupTree {
  readonly root: GroupNode = { name: '', path: '', id: md5(''), groups: [], checks: [] };
  private readonly byPath = new Map<string, GroupNode>([['', this.root]]);
  private readonly checksByPath = new Map<string, CheckNode>();

  group(parentPath: string, name: string): GroupNode {
    const path = `${parentPath}::${name}`;
    let g = this.byPath.get(path);
    if (!g) {
      g = { name, path, id: md5(path), groups: [], checks: [] };
      this.byPath.set(path, g);
      this.byPath.get(parentPath)!.groups.push(g);
    }
    return g;
  }

  check(groupPath: string, name: string): CheckNode {
    const path = `${groupPath}::${name}`;
    let c = this.checksByPath.get(path);
    if (!c) {
      c = { name, path, id: md5(path), passes: 0, fails: 0 };
      this.checksByPath.set(path, c);
      this.byPath.get(groupPath)!.checks.push(c);
    }
    return c;
  }
}
