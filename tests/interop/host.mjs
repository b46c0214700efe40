// An independent host: the TypeScript MCP SDK client (@modelcontextprotocol/client) drives the
// installed `agent-as-model` over stdio on one protocol era, answers every sampling request with a
// fixed text (or tool_use blocks when it is offered tools), calls `generate` and `chat_complete`
// (plain, a two-call tool loop, structured output), and prints one JSON report on stdout.
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
    const tools = (request.params.tools ?? []).map(tool => tool.name);
    const last = request.params.messages.at(-1).content;
    const answeredTool = (Array.isArray(last) ? last : [last]).some(block => block.type === 'tool_result');
    if (tools.includes('structured_output')) {
        // structured output: the one required tool carries the answer
        const input = { colour: 'teal' };
        return { model: HOST_MODEL, role: 'assistant', content: [{ type: 'tool_use', id: 'so_1', name: 'structured_output', input }], stopReason: 'toolUse' };
    }
    if (tools.includes('get_weather') && !answeredTool) {
        const call = { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } };
        return { model: HOST_MODEL, role: 'assistant', content: [call], stopReason: 'toolUse' };
    }
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
    // A tool loop and structured output, with the TS host answering tool_use blocks.
    const weather = { name: 'get_weather', description: 'Weather for a city.', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
    const ask = [{ role: 'user', content: 'Weather in Oslo?' }];
    const toolCall = await client.callTool({ name: 'chat_complete', arguments: { messages: ask, tools: [weather] } });
    const envelope = JSON.parse(toolCall.content[0].text);
    const loop = [
        ...ask,
        { role: 'assistant', content: null, tool_calls: envelope.tool_calls.map(call => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } })) },
        ...envelope.tool_calls.map(call => ({ role: 'tool', tool_call_id: call.id, content: 'sunny' }))
    ];
    report.toolLoop = [toolCall, await client.callTool({ name: 'chat_complete', arguments: { messages: loop, tools: [weather] } })];
    report.structured = await client.callTool({
        name: 'chat_complete',
        arguments: { messages: [{ role: 'user', content: 'A colour?' }], output_schema: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] } }
    });
    report.sampling = sampling;
    process.stdout.write(JSON.stringify(report) + '\n');
} catch (error) {
    process.stdout.write(JSON.stringify({ error: String(error?.stack ?? error) }) + '\n');
    process.exitCode = 1;
} finally {
    await client.close().catch(() => {});
}
