"use client";

import { Badge, Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui";
import { schemaRows } from "@/components/catalog/schema-rows";

/** A schema as a property table (nested objects indented), with the raw JSON one tab away. */
export function SchemaTable({ schema, label, idPrefix }: { schema: unknown; label: string; idPrefix: string }) {
  const rows = schemaRows(schema);
  return (
    <Tabs defaultValue="table">
      <TabsList aria-label={`${label} schema view`}>
        <TabsTrigger value="table">Properties</TabsTrigger>
        <TabsTrigger value="raw">Raw JSON</TabsTrigger>
      </TabsList>
      <TabsContent value="table">
        {rows.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No named properties: the raw JSON shows the whole schema.</p>
        ) : (
          <div className="overflow-x-auto rounded-md border border-zinc-200 dark:border-zinc-800">
            <table className="w-full text-left text-sm" aria-label={`${label} properties`} id={`${idPrefix}-table`}>
              <thead className="bg-zinc-50 text-xs font-semibold text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
                <tr>
                  <th scope="col" className="px-3 py-2">Name</th>
                  <th scope="col" className="px-3 py-2">Type</th>
                  <th scope="col" className="px-3 py-2">Required</th>
                  <th scope="col" className="px-3 py-2">Default</th>
                  <th scope="col" className="px-3 py-2">Description</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.path} className="border-t border-zinc-200 align-top dark:border-zinc-800">
                    <th scope="row" className="px-3 py-2 font-mono text-xs font-medium whitespace-nowrap text-zinc-900 dark:text-zinc-100">
                      <span style={{ paddingLeft: `${row.depth * 1.25}rem` }} className="inline-block">
                        {row.depth > 0 ? <span aria-hidden="true" className="mr-1 text-zinc-400">└</span> : null}
                        {row.name}
                      </span>
                    </th>
                    <td className="px-3 py-2 font-mono text-xs text-zinc-700 dark:text-zinc-300">{row.type}</td>
                    <td className="px-3 py-2">{row.required ? <Badge tone="accent">required</Badge> : <span className="text-xs text-zinc-500 dark:text-zinc-400">optional</span>}</td>
                    <td className="px-3 py-2 font-mono text-xs text-zinc-700 dark:text-zinc-300">{row.defaultValue ?? <span className="text-zinc-400 dark:text-zinc-500" aria-label="none">—</span>}</td>
                    <td className="px-3 py-2 text-zinc-700 dark:text-zinc-300">
                      {row.description ? <p>{row.description}</p> : null}
                      {row.enumValues ? (
                        <p className="mt-0.5 text-xs">
                          <span className="text-zinc-600 dark:text-zinc-400">One of </span>
                          {row.enumValues.map((value, index) => (
                            <span key={value}>
                              {index > 0 ? ", " : ""}
                              <code className="font-mono">{value}</code>
                            </span>
                          ))}
                        </p>
                      ) : null}
                      {row.constraints.length > 0 ? <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">{row.constraints.join(" · ")}</p> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </TabsContent>
      <TabsContent value="raw">
        <pre aria-label={`${label} schema as JSON`} tabIndex={0} className="max-h-[28rem] overflow-auto rounded-md bg-zinc-950 p-3 font-mono text-xs leading-5 text-zinc-100">{JSON.stringify(schema, null, 2)}</pre>
      </TabsContent>
    </Tabs>
  );
}
