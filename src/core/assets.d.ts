declare module '*.js' { const text: string; export default text }
declare module '*.css' { const text: string; export default text }
declare module '*.so' { const path: string; export default path }
