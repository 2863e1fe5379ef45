import fs from 'node:fs';
import path from 'node:path';
import { category, cell, frontMatter, resetDir, writeFile } from './write';

// One page per avocado CLI command under docs/avocado-os/tools/avocado-cli/commands/.
interface AvocadoCommand {
  path: string;
  summary: string;
  description: string;
  options: [string, string][];
  example: string;
}
interface AvocadoData {
  common: [string, string][];
  commands: AvocadoCommand[];
}

const GROUPS: Record<string, string> = {
  ext: 'ext: extensions',
  runtime: 'runtime: runtimes',
  sdk: 'sdk: the SDK container',
  hitl: 'hitl: hardware in the loop',
};

function table(rows: [string, string][]): string {
  if (rows.length === 0) return 'This command takes only the common options.\n';
  return ['| Option | Description |', '| --- | --- |', ...rows.map(([f, d]) => `| \`${cell(f)}\` | ${cell(d)} |`)].join('\n') + '\n';
}

export function writeAvocadoPages(siteDir: string): string[] {
  const data = JSON.parse(fs.readFileSync(path.join(siteDir, 'data/avocado-cli.json'), 'utf8')) as AvocadoData;
  const dir = path.join(siteDir, 'docs/avocado-os/tools/avocado-cli/commands');
  resetDir(dir);
  category(dir, 'Commands', 10, 'avocado-cli-commands', false);
  Object.entries(GROUPS).forEach(([group, label], i) => category(path.join(dir, group), label, 50 + i, `avocado-cli-${group}`));
  return data.commands.map((cmd, i) => {
    const words = ['avocado', ...cmd.path.split('/')];
    let md = frontMatter({
      title: words.join(' '),
      sidebar_label: cmd.path.split('/').pop()!,
      sidebar_position: i + 1,
      description: cmd.summary,
    });
    md += `${cmd.summary}.\n\n${cmd.description}\n\n## Usage\n\n\`\`\`bash\n${words.join(' ')} [options]\n\`\`\`\n\n## Options\n\n${table(cmd.options)}\n`;
    md += `### Common options\n\n${table(data.common)}\n## Example\n\n\`\`\`bash\n${cmd.example}\n\`\`\`\n\nSee [configuration](/avocado-os/tools/avocado-cli/configuration) for the project file the command reads.\n`;
    writeFile(path.join(dir, `${cmd.path}.md`), md);
    return `/avocado-os/tools/avocado-cli/commands/${cmd.path}`;
  });
}
