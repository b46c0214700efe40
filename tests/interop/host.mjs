// An independent host: the TypeScript MCP SDK client (@modelcontextprotocol/client) drives the
// installed `agent-as-model` over stdio on one protocol era, answers every sampling request with a
// fixed text, calls `generate` and `chat_complete`, and prints one JSON report on stdout.
//
//   node host.mjs <agent-as-model command> <legacy|2026-07-28>
//
// The report: {era, protocolVersion, serverVersion, tools, sampling: [params seen], results: {...}}.
// On failure it prints {"error": ...} and exits 1. Diagnostics go to stderr only.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const ANSWER = 'Answered by the TypeScript host.';
export const HOST_MODEL = 'ts-host-model';

const [command, mode] = process.argv.slice(2);
if (!command || !['legacy', '2026-07-28'].includes(mode)) {
    console.error('usage: node host.mjs <agent-as-model command> <legacy|2026-07-28>');
    process.exit(2);
}

const sampling = [];
const client = new Client(
    { name: 'agent-as-model-interop', version: '1.0.0' },
    {
        capabilities: { sampling: { tools: {} } },
        versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : { pin: mode } }
    }
);
client.setRequestHandler('sampling/createMessage', async request => {
    sampling.push(request.params);
    return {
        model: HOST_MODEL,
        role: 'assistant',
        content: { type: 'text', text: ANSWER },
        stopReason: 'endTurn'
    };
});

const transport = new StdioClientTransport({ command, args: [], stderr: 'inherit' });
const report = { era: mode };
try {
    await client.connect(transport);
    report.protocolEra = client.getProtocolEra();
    report.protocolVersion = client.getNegotiatedProtocolVersion();
    report.serverVersion = client.getServerVersion();
    report.tools = (await client.listTools()).tools.map(tool => tool.name);
    report.results = {
        generate: await client.callTool({ name: 'generate', arguments: { prompt: 'Say hi.' } }),
        chat_complete: await client.callTool({
            name: 'chat_complete',
            arguments: {
                messages: [
                    { role: 'system', content: 'Be brief.' },
                    { role: 'user', content: 'Name a colour.' }
                ],
                model: 'gpt-4o',
                temperature: 0.2,
                max_tokens: 64
            }
        })
    };
    report.sampling = sampling;
    process.stdout.write(JSON.stringify(report) + '\n');
} catch (error) {
    process.stdout.write(JSON.stringify({ error: String(error?.stack ?? error) }) + '\n');
    process.exitCode = 1;
} finally {
    await client.close().catch(() => {});
}
