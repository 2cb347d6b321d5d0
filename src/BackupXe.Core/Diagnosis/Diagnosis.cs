using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>What limited one operation, and what to do about it.</summary>
public sealed record Diagnosis(Verdict Verdict, IReadOnlyList<Recommendation> Recommendations);
