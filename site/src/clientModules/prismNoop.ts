// Stand-in for the classic theme's Prism client module; see plugins/prismOnDemand.ts.
export {};
