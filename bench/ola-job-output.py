# Writes N Ola Hallengren DatabaseBackup commands (log backups of 20 databases, one each 5 minutes) for memory runs of `history import` (docs/performance.md).
import sys, datetime
n=int(sys.argv[1]); out=open(sys.argv[2],'w',newline='')
def L(s): out.write(s+"\r\n")
t=datetime.datetime(2024,5,1,0,59,59)
f=lambda d:d.strftime("%Y-%m-%d %H:%M:%S")
for s in [f"Date and time: {f(t)}","Server: PROD01","Version: 15.0.4360.2","Edition: Enterprise Edition: Core-based Licensing (64-bit)","Platform: Windows","Procedure: [master].[dbo].[DatabaseBackup]","Parameters: @Databases = 'USER_DATABASES', @BackupType = 'FULL', @Verify = 'Y', @Compress = 'Y', @CheckSum = 'Y'","Version: 2022-12-03 17:23:44","Source: https://ola.hallengren.com","\t"]: L(s)
for i in range(n):
    db=f"Db{i%20:02d}"; st=t+datetime.timedelta(minutes=5*(i//20)+1, seconds=i%20)
    dur=datetime.timedelta(seconds=30)
    L(f"Date and time: {f(st)}"); L("Database context: [master]")
    L(f"Command: BACKUP LOG [{db}] TO DISK = N'X:\\Backup\\{db}_LOG_{i}.trn' WITH CHECKSUM, COMPRESSION")
    L(f"Processed 998 pages for database '{db}', file '{db}_log' on file 1.")
    L(f"BACKUP LOG successfully processed 1000 pages in 3.000 seconds (2.604 MB/sec).")
    L("Outcome: Succeeded"); L("Duration: 00:00:30"); L(f"Date and time: {f(st+dur)}"); L("\t")
